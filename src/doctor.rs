//! `grader doctor`: what this machine gives the sandbox, layer by layer, and who builds
//! submissions here. A command of its own above both the sandbox and the build, as it asks
//! each of them.

use crate::compile;
use crate::sandbox::Sandbox;

/// `grader doctor`: each layer, present or not; exit 1 when one is missing.
pub fn run() -> std::process::ExitCode {
    let sandbox = match Sandbox::probe() {
        Ok(sandbox) => sandbox,
        Err(error) => {
            eprintln!("error: cannot probe the sandbox: {error}");
            return std::process::ExitCode::from(2);
        }
    };
    for (present, name, text) in sandbox.layers().lines() {
        println!("{} {name}: {text}", if present { "yes" } else { "no " });
    }
    let builds = compile::who_builds(&sandbox);
    match &builds {
        Ok(who) => println!("yes builds: {who}"),
        Err(why) => println!("no  builds: refused here: {why}"),
    }
    match sandbox.layers().warning() {
        _ if builds.is_err() => {
            eprintln!("builds cannot run unprivileged here: `grader check` will grade nothing");
            std::process::ExitCode::from(1)
        }
        None => {
            eprintln!("every layer is present: `grader check --sandbox strict` will grade here");
            std::process::ExitCode::SUCCESS
        }
        Some(warning) => {
            eprintln!("{warning}");
            std::process::ExitCode::from(1)
        }
    }
}
