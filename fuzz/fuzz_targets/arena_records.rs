#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    brandubh_eval::fuzzing::arena_records(data);
});
