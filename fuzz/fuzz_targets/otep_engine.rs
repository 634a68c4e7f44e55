#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    brandubh_arena::fuzzing::otep_engine(data);
});
