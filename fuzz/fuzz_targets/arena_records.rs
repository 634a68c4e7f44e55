#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    brandubh_arena::fuzzing::arena_records(data);
});
