//! How a batch grades: the options of each `grader check` and the specs' fingerprint
//! (`GradedWith`), recorded with every result and in the manifest of what a batch or shard
//! set out to grade, which `merge` and `export` read.

use std::collections::BTreeMap;

use clap::Parser as _;
use serde::{Deserialize, Serialize};

use super::shard::Shard;
use crate::check::CheckArgs;
use crate::student_text::StudentText;

/// How a result was graded: the options of its `grader check` and a hash of the specs
/// they name. A resumed batch grades again a result graded otherwise.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GradedWith {
    pub check_options: Vec<String>,
    /// The specs' fingerprint (`spec::fingerprint`), in hex.
    pub specs: String,
    /// The submission's time from the roster, in a submission's results: a new time
    /// grades it again, as a new option does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submitted_at: Option<String>,
}

impl GradedWith {
    /// Reads `options` as `grader check` would (so a bad one is refused before a class is
    /// graded) and hashes the specs they name.
    pub fn of(options: &[String]) -> Result<GradedWith, String> {
        let check = check_args(options)?;
        let specs = crate::spec::fingerprint(&check.specs, &check.added_specs)?;
        Ok(GradedWith {
            check_options: options.to_vec(),
            specs: format!("{specs:016x}"),
            submitted_at: None,
        })
    }

    /// How a submission made at `submitted_at` is graded.
    pub fn at(&self, submitted_at: Option<&str>) -> GradedWith {
        GradedWith {
            submitted_at: submitted_at.map(String::from),
            ..self.clone()
        }
    }

    /// How a result says it was graded, if it says.
    pub fn of_results(results: &serde_json::Value) -> Option<GradedWith> {
        serde_json::from_value(results.get("graded_with")?.clone()).ok()
    }
}

/// `options` read as `grader check` would, so a bad one is refused before a class is
/// graded.
pub fn check_args(options: &[String]) -> Result<CheckArgs, String> {
    #[derive(clap::Parser)]
    #[command(name = "grader check")]
    struct Check {
        #[command(flatten)]
        args: CheckArgs,
    }
    Check::try_parse_from(std::iter::once("check".to_string()).chain(options.iter().cloned()))
        .map(|check| check.args)
        .map_err(|error| {
            let text = error.to_string();
            format!(
                "the options after -- are not grader check's: {}",
                text.lines()
                    .next()
                    .unwrap_or_default()
                    .trim_start_matches("error: ")
            )
        })
}

/// What a batch or one of its shards set out to grade: `grader batch merge` checks that
/// the shards it joins are the whole class, each once, graded the same way.
#[derive(Debug, Serialize, Deserialize)]
pub struct Manifest {
    /// Which shard, and who said so (`--shard K/N` or the engine's variables); none for a
    /// whole class.
    pub shard: Option<Shard>,
    /// The submissions of the class, every shard's.
    pub class: Vec<StudentText>,
    /// The submissions of this shard.
    pub submissions: Vec<StudentText>,
    pub graded_with: GradedWith,
    /// Each submission of the class with the time the roster gives it (none where its cell
    /// could not be read); none without `--roster`. Every shard reads the whole class's, so
    /// that `merge` can refuse shards whose late penalties came from different times.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submission_times: Option<BTreeMap<StudentText, Option<String>>>,
}
