//! What the API answers when a request cannot be served: a status and a
//! message naming what was wrong, as `{"error": "…"}`.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The request itself is wrong: bad JSON, an unknown rule set, an
    /// illegal move, a player spec the server does not allow.
    #[error("{0}")]
    Bad(String),
    /// No such rule set, net, run or file under the server's directories.
    #[error("{0}")]
    NotFound(String),
    /// Every search slot stayed busy for the whole wait.
    #[error("{0}")]
    Busy(String),
    /// Something on the server's side failed (a net that cannot load, a
    /// run whose files are damaged).
    #[error("{0}")]
    Internal(String),
}

pub fn bad(why: impl Into<String>) -> ApiError {
    ApiError::Bad(why.into())
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = match &self {
            ApiError::Bad(_) => StatusCode::BAD_REQUEST,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::Busy(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        };
        (
            status,
            axum::Json(serde_json::json!({ "error": self.to_string() })),
        )
            .into_response()
    }
}
