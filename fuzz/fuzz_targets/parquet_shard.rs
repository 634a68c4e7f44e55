#![no_main]

libfuzzer_sys::fuzz_target!(
    // The decoder panics that the reader turns into errors must not reach
    // libFuzzer's hook, which would count them as crashes.
    init: { brandubh_selfplay::records::quiet_decoder_panics(); },
    |data: &[u8]| {
        brandubh_arena::fuzzing::parquet_shard(data);
    }
);
