//! Runs one core-JSON config file and prints the summary: for profiling the core without Python.
//! `cargo run --release -p exanet-core --example run_config -- CONFIG.json`

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: run_config CONFIG.json (core JSON, docs/core-interface.md)");
        std::process::exit(2);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("cannot read {path}: {e}");
            std::process::exit(2);
        }
    };
    let config = match exanet_core::Config::from_json(&text) {
        Ok(config) => config,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    match exanet_core::simulate(&config, 1.0, &mut |_| true) {
        Ok(out) => {
            for (key, value) in &out.summary.entries {
                println!("{key} = {value:?}");
            }
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
