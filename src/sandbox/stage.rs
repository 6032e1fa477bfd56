//! `grader __contain STAGE`: which stage runs. The forker's stage starts each program at
//! stage 1, so this dispatch sits above both the stages and the forker.

use super::contain::{OUTSIDE, PROBE, fail, outside, probe};
use super::forker::{FORKER, serve};
use super::jail::{JAIL_ENV, Jail};

/// Runs the stage named by the argument after [`super::CONTAIN_COMMAND`]; never returns.
pub fn run_stage(stage: &str) -> ! {
    match stage {
        PROBE => probe(),
        FORKER => serve(),
        _ => {}
    }
    let jail = match std::env::var(JAIL_ENV)
        .map_err(|e| e.to_string())
        .and_then(|text| serde_json::from_str::<Jail>(&text).map_err(|e| e.to_string()))
    {
        Ok(jail) => jail,
        Err(error) => fail(&format!("no jail to run in ({error})")),
    };
    match stage {
        OUTSIDE => outside(&jail),
        other => fail(&format!("no stage `{other}`")),
    }
}
