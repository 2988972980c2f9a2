//! Tells the tests which vector instructions the processor that builds them has, so that a
//! test of an AVX-512 or AVX2 path is reported as ignored, not as passed, where the processor
//! lacks it (`cargo test` builds and runs on the same machine). The simulations themselves ask
//! the processor at run time (`src/cpu.rs`).

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rustc-check-cfg=cfg(processor_has_avx512)");
    println!("cargo::rustc-check-cfg=cfg(processor_has_avx2_fma)");
    println!("cargo::rustc-check-cfg=cfg(c_library_is_glibc_fma)");
    let native = std::env::var("HOST").ok() == std::env::var("TARGET").ok();
    #[cfg(target_arch = "x86_64")]
    if native {
        use std::arch::is_x86_feature_detected as has;
        if has!("avx512f") && has!("avx512dq") {
            println!("cargo::rustc-cfg=processor_has_avx512");
        }
        if has!("avx2") && has!("fma") {
            println!("cargo::rustc-cfg=processor_has_avx2_fma");
            // glibc picks its FMA builds of exp and log1p (which the replicas follow) on such a
            // processor.
            let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
            let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
            if os == "linux" && env == "gnu" {
                println!("cargo::rustc-cfg=c_library_is_glibc_fma");
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = native;
}
