//! Which submissions a shard of a batch grades, and which shard this batch is: given as
//! `--shard K/N`, or read from the variables the engine running a job array sets
//! (`--shard auto`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// What `--shard` says: K of N, or to ask the engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShardArg {
    Given { number: usize, count: usize },
    Auto,
}

/// Reads `--shard`: `K/N` (1-based) or `auto`.
pub fn parse(text: &str) -> Result<ShardArg, String> {
    if text.trim() == "auto" {
        return Ok(ShardArg::Auto);
    }
    let bad =
        || format!("`{text}` is not a shard: write K/N, such as 2/5, with K from 1 to N, or auto");
    let (k, n) = text.split_once('/').ok_or_else(bad)?;
    let (number, count): (usize, usize) = (
        k.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if count == 0 || number == 0 || number > count {
        return Err(bad());
    }
    Ok(ShardArg::Given { number, count })
}

/// Who said which shard a batch is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Engine {
    /// `--shard K/N` on the command line.
    #[serde(rename = "--shard")]
    Flag,
    /// A Slurm job array (`sbatch --array`).
    Slurm,
    /// A Kubernetes indexed Job, as `grader batch k8s-job` prints it.
    Kubernetes,
    /// An AWS Batch array job.
    AwsBatch,
    /// A GitLab CI job with `parallel:`.
    Gitlab,
    /// `CARDGRADE_SHARD_INDEX` and `CARDGRADE_SHARDS`, which a GitHub Actions matrix (or any
    /// engine not named here) sets from its own index and count.
    CardgradeEnv,
}

/// Shard `number` of `count` (1-based, as `--shard K/N`), and who said so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub number: usize,
    pub count: usize,
    pub engine: Engine,
    /// The engine's variables as this batch found them; none for `--shard K/N`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub variables: BTreeMap<String, String>,
}

impl Shard {
    pub fn given(number: usize, count: usize) -> Shard {
        Shard {
            number,
            count,
            engine: Engine::Flag,
            variables: BTreeMap::new(),
        }
    }

    /// Whether the submission named `name` is this shard's.
    pub fn holds(&self, name: &str) -> bool {
        shard_of(name, self.count) == self.number
    }
}

/// The shard, of `count`, of the submission named `name` (1-based): chosen by a hash of the
/// name, not by its place in the class's listing, so that adding or removing one submission
/// moves no other, and a shard graded again grades the same students.
pub fn shard_of(name: &str, count: usize) -> usize {
    (mixed(fnv1a_64(name.as_bytes())) % count as u64) as usize + 1
}

/// FNV-1a, 64 bits: fixed by its specification, so every machine and every version of the
/// grader cuts a class alike (std's `DefaultHasher` may change between Rust releases).
fn fnv1a_64(bytes: &[u8]) -> u64 {
    const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes.iter().fold(OFFSET_BASIS, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(PRIME)
    })
}

/// MurmurHash3's 64-bit finalizer (fmix64), as fixed as FNV: FNV-1a alone spreads a name's
/// last bytes over neither its low bits (those depend on the bytes' low bits only) nor its
/// high ones (its prime is small), and class names differ in their last bytes
/// (`student-041`, `student-042`).
fn mixed(mut hash: u64) -> u64 {
    hash ^= hash >> 33;
    hash = hash.wrapping_mul(0xff51_afd7_ed55_8ccd);
    hash ^= hash >> 33;
    hash = hash.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    hash ^ (hash >> 33)
}

/// How an engine names its shard: the variable whose presence says the engine runs this
/// batch, and how its variables give the shard (0-based rank, count).
struct EngineVariables {
    engine: Engine,
    name: &'static str,
    index: &'static str,
    read: fn(&Variables) -> Result<(usize, usize), String>,
}

const SLURM_ID: &str = "SLURM_ARRAY_TASK_ID";
const SLURM_MIN: &str = "SLURM_ARRAY_TASK_MIN";
const SLURM_MAX: &str = "SLURM_ARRAY_TASK_MAX";
const SLURM_STEP: &str = "SLURM_ARRAY_TASK_STEP";
const SLURM_COUNT: &str = "SLURM_ARRAY_TASK_COUNT";
const KUBERNETES_INDEX: &str = "JOB_COMPLETION_INDEX";
/// The shards' count where the engine does not say it: set by the printed Kubernetes Job,
/// and with `CARDGRADE_SHARD_INDEX` by a workflow.
pub const SHARDS_VARIABLE: &str = "CARDGRADE_SHARDS";
const AWS_INDEX: &str = "AWS_BATCH_JOB_ARRAY_INDEX";
const AWS_SIZE: &str = "AWS_BATCH_JOB_ARRAY_SIZE";
const GITLAB_INDEX: &str = "CI_NODE_INDEX";
const GITLAB_TOTAL: &str = "CI_NODE_TOTAL";
const CARDGRADE_INDEX: &str = "CARDGRADE_SHARD_INDEX";

const ENGINES: [EngineVariables; 5] = [
    EngineVariables {
        engine: Engine::Slurm,
        name: "a Slurm job array",
        index: SLURM_ID,
        read: slurm,
    },
    EngineVariables {
        engine: Engine::Kubernetes,
        name: "a Kubernetes indexed Job",
        index: KUBERNETES_INDEX,
        read: |variables| {
            Ok((
                number(variables, KUBERNETES_INDEX)?,
                number(variables, SHARDS_VARIABLE)?,
            ))
        },
    },
    EngineVariables {
        engine: Engine::AwsBatch,
        name: "an AWS Batch array job",
        index: AWS_INDEX,
        read: |variables| Ok((number(variables, AWS_INDEX)?, number(variables, AWS_SIZE)?)),
    },
    EngineVariables {
        engine: Engine::Gitlab,
        name: "a GitLab parallel job",
        index: GITLAB_INDEX,
        read: |variables| {
            // GitLab counts its nodes from 1.
            let index = number(variables, GITLAB_INDEX)?;
            if index == 0 {
                return Err(format!("{GITLAB_INDEX}=0, where GitLab counts from 1"));
            }
            Ok((index - 1, number(variables, GITLAB_TOTAL)?))
        },
    },
    EngineVariables {
        engine: Engine::CardgradeEnv,
        name: "CARDGRADE_SHARD_INDEX (as a GitHub Actions matrix sets it)",
        index: CARDGRADE_INDEX,
        read: |variables| {
            Ok((
                number(variables, CARDGRADE_INDEX)?,
                number(variables, SHARDS_VARIABLE)?,
            ))
        },
    },
];

/// Every variable `--shard auto` reads, for the batch to gather from its environment.
pub const VARIABLES: [&str; 12] = [
    SLURM_ID,
    SLURM_MIN,
    SLURM_MAX,
    SLURM_STEP,
    SLURM_COUNT,
    KUBERNETES_INDEX,
    AWS_INDEX,
    AWS_SIZE,
    GITLAB_INDEX,
    GITLAB_TOTAL,
    CARDGRADE_INDEX,
    SHARDS_VARIABLE,
];

/// The variables of `VARIABLES` that are set, by name.
pub type Variables = BTreeMap<String, String>;

/// The whole number the variable `name` holds; an error naming it when it is unset or not
/// one.
fn number(variables: &Variables, name: &str) -> Result<usize, String> {
    let value = variables
        .get(name)
        .ok_or_else(|| format!("{name} is not set"))?;
    value
        .trim()
        .parse()
        .map_err(|_| format!("{name}={value} is not a whole number"))
}

/// A Slurm task's rank in its array: its ID counted from the array's first, in steps.
fn slurm(variables: &Variables) -> Result<(usize, usize), String> {
    let id = number(variables, SLURM_ID)?;
    let min = number(variables, SLURM_MIN)?;
    let count = number(variables, SLURM_COUNT)?;
    let step = match variables.get(SLURM_STEP) {
        Some(_) => number(variables, SLURM_STEP)?,
        None => 1,
    };
    if step == 0 {
        return Err(format!("{SLURM_STEP}=0 is no step"));
    }
    // Slurm says step 1 for a list like --array=1,3,8: its tasks cannot be ranked by ID,
    // which the array's last ID shows.
    if let Some(max) = variables
        .get(SLURM_MAX)
        .map(|_| number(variables, SLURM_MAX))
    {
        let max = max?;
        let last = count
            .checked_sub(1)
            .and_then(|steps| steps.checked_mul(step))
            .and_then(|span| span.checked_add(min));
        // An empty array is out of range, below.
        if count > 0 && Some(max) != last {
            return Err(format!(
                "the array's {count} tasks from {min} to {max} are not evenly spaced by {step}: submit with --array=FIRST-LAST or FIRST-LAST:STEP"
            ));
        }
    }
    if id < min || (id - min) % step != 0 {
        return Err(format!(
            "{SLURM_ID}={id} is not a task of an array from {min} in steps of {step}"
        ));
    }
    Ok(((id - min) / step, count))
}

/// The shard this batch is, from the variables of the engine running it (`--shard auto`).
/// Refuses, naming the variables it found, when no engine's are set, an engine's are
/// incomplete or out of range, or two engines disagree.
pub fn from_engine(variables: &Variables) -> Result<Shard, String> {
    let found = || {
        let set: Vec<String> = VARIABLES
            .iter()
            .filter_map(|name| Some(format!("{name}={}", variables.get(*name)?)))
            .collect();
        if set.is_empty() {
            "none of them is set".to_string()
        } else {
            format!("found {}", set.join(", "))
        }
    };
    let mut readings: Vec<(&EngineVariables, usize, usize)> = Vec::new();
    for engine in ENGINES.iter().filter(|e| variables.contains_key(e.index)) {
        let (rank, count) = (engine.read)(variables).map_err(|reason| {
            format!(
                "--shard auto cannot tell which shard this is under {}: {reason} ({})",
                engine.name,
                found()
            )
        })?;
        if count == 0 || rank >= count {
            return Err(format!(
                "--shard auto cannot tell which shard this is under {}: shard {} of {count} is out of range ({})",
                engine.name,
                rank + 1,
                found()
            ));
        }
        readings.push((engine, rank, count));
    }
    let Some(&(first, rank, count)) = readings.first() else {
        let indexes: Vec<&str> = ENGINES.iter().map(|e| e.index).collect();
        return Err(format!(
            "--shard auto found no job array's index: it reads {} ({}); run it as a task of a job array, or pass --shard K/N",
            indexes.join(", "),
            found()
        ));
    };
    if let Some((other, ..)) = readings.iter().find(|(_, r, c)| (*r, *c) != (rank, count)) {
        return Err(format!(
            "--shard auto cannot tell which shard this is: {} and {} say different shards ({}); pass --shard K/N",
            first.name,
            other.name,
            found()
        ));
    }
    Ok(Shard {
        number: rank + 1,
        count,
        engine: first.engine,
        variables: VARIABLES
            .iter()
            .filter_map(|name| Some((name.to_string(), variables.get(*name)?.clone())))
            .collect(),
    })
}

/// The variables `--shard auto` reads, as this process's environment sets them.
pub fn engine_variables() -> Variables {
    VARIABLES
        .iter()
        .filter_map(|name| {
            let value = std::env::var_os(name)?;
            Some((name.to_string(), value.to_string_lossy().into_owned()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn variables(pairs: &[(&str, &str)]) -> Variables {
        pairs
            .iter()
            .map(|(name, value)| (name.to_string(), value.to_string()))
            .collect()
    }

    /// Shard number and count, and the engine, `--shard auto` reads from `pairs`.
    fn read(pairs: &[(&str, &str)]) -> Result<(usize, usize, Engine), String> {
        from_engine(&variables(pairs)).map(|shard| (shard.number, shard.count, shard.engine))
    }

    #[test]
    fn shards_are_k_of_n_or_auto() {
        assert_eq!(
            parse("2/5"),
            Ok(ShardArg::Given {
                number: 2,
                count: 5
            })
        );
        assert_eq!(parse("auto"), Ok(ShardArg::Auto));
        for bad in ["0/3", "4/3", "1/0", "x", "1-2", "Auto2"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_cut_is_the_same_in_every_version() {
        // FNV-1a's published test vectors.
        assert_eq!(fnv1a_64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a_64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a_64(b"foobar"), 0x8594_4171_f739_67e8);
        // Shards graded by one version are merged with shards of another: a change here
        // moves students already graded.
        let cut: Vec<(usize, usize)> = ["alice", "bob", "student-3", "student-5"]
            .iter()
            .map(|name| (shard_of(name, 2), shard_of(name, 3)))
            .collect();
        assert_eq!(cut, [(1, 3), (1, 2), (2, 3), (1, 2)]);
    }

    #[test]
    fn adding_a_submission_moves_no_other_and_shards_are_near_even() {
        let class: Vec<String> = (0..200).map(|i| format!("student-{i:03}")).collect();
        let before: Vec<usize> = class.iter().map(|name| shard_of(name, 4)).collect();
        let mut grown = class.clone();
        grown.insert(0, "aaron-late".into());
        let after: Vec<usize> = grown[1..].iter().map(|name| shard_of(name, 4)).collect();
        assert_eq!(before, after);
        let sizes: Vec<usize> = (1..=4)
            .map(|k| before.iter().filter(|&&s| s == k).count())
            .collect();
        assert!(
            sizes.iter().all(|&size| (30..=70).contains(&size)),
            "200 names in 4 shards: {sizes:?}"
        );
    }

    #[test]
    fn a_slurm_array_is_ranked_from_its_first_task_in_its_steps() {
        let array = |id: &str| {
            read(&[
                (SLURM_ID, id),
                (SLURM_MIN, "3"),
                (SLURM_MAX, "9"),
                (SLURM_STEP, "2"),
                (SLURM_COUNT, "4"),
            ])
        };
        // sbatch --array=3-9:2: tasks 3, 5, 7, 9.
        assert_eq!(array("3"), Ok((1, 4, Engine::Slurm)));
        assert_eq!(array("7"), Ok((3, 4, Engine::Slurm)));
        assert_eq!(array("9"), Ok((4, 4, Engine::Slurm)));
        let between = array("4").unwrap_err();
        assert!(
            between.contains("SLURM_ARRAY_TASK_ID=4 is not a task"),
            "{between}"
        );
        // sbatch --array=1-4: no step variable is needed.
        assert_eq!(
            read(&[(SLURM_ID, "2"), (SLURM_MIN, "1"), (SLURM_COUNT, "4")]),
            Ok((2, 4, Engine::Slurm))
        );
    }

    #[test]
    fn a_slurm_array_without_a_count_or_evenly_spaced_tasks_is_refused() {
        let missing = read(&[(SLURM_ID, "2"), (SLURM_MIN, "0")]).unwrap_err();
        assert!(
            missing.contains("SLURM_ARRAY_TASK_COUNT is not set"),
            "{missing}"
        );
        assert!(
            missing.contains("found SLURM_ARRAY_TASK_ID=2, SLURM_ARRAY_TASK_MIN=0"),
            "{missing}"
        );
        // sbatch --array=1,3,8: Slurm says step 1, and task 3 would pass for rank 2.
        let listed = read(&[
            (SLURM_ID, "3"),
            (SLURM_MIN, "1"),
            (SLURM_MAX, "8"),
            (SLURM_STEP, "1"),
            (SLURM_COUNT, "3"),
        ])
        .unwrap_err();
        assert!(listed.contains("not evenly spaced"), "{listed}");
        let past = read(&[(SLURM_ID, "9"), (SLURM_MIN, "0"), (SLURM_COUNT, "4")]).unwrap_err();
        assert!(past.contains("shard 10 of 4 is out of range"), "{past}");
        let empty = read(&[
            (SLURM_ID, "0"),
            (SLURM_MIN, "0"),
            (SLURM_MAX, "0"),
            (SLURM_COUNT, "0"),
        ])
        .unwrap_err();
        assert!(empty.contains("shard 1 of 0 is out of range"), "{empty}");
    }

    #[test]
    fn each_engine_names_its_shard_in_its_own_way() {
        assert_eq!(
            read(&[(KUBERNETES_INDEX, "0"), (SHARDS_VARIABLE, "3")]),
            Ok((1, 3, Engine::Kubernetes))
        );
        assert_eq!(
            read(&[(AWS_INDEX, "4"), (AWS_SIZE, "5")]),
            Ok((5, 5, Engine::AwsBatch))
        );
        assert_eq!(
            read(&[(GITLAB_INDEX, "1"), (GITLAB_TOTAL, "2")]),
            Ok((1, 2, Engine::Gitlab))
        );
        assert_eq!(
            read(&[(CARDGRADE_INDEX, "1"), (SHARDS_VARIABLE, "2")]),
            Ok((2, 2, Engine::CardgradeEnv))
        );
        let shard = from_engine(&variables(&[(AWS_INDEX, "4"), (AWS_SIZE, "5")])).unwrap();
        assert_eq!(
            shard.variables,
            variables(&[(AWS_INDEX, "4"), (AWS_SIZE, "5")])
        );
    }

    #[test]
    fn auto_refuses_what_it_cannot_tell_naming_what_it_found() {
        let none = read(&[]).unwrap_err();
        assert!(none.contains("none of them is set"), "{none}");
        assert!(none.contains("SLURM_ARRAY_TASK_ID"), "{none}");
        // A count alone, as a Job that is not indexed would have it.
        let count_only = read(&[(SHARDS_VARIABLE, "4")]).unwrap_err();
        assert!(
            count_only.contains("found CARDGRADE_SHARDS=4"),
            "{count_only}"
        );
        let no_count = read(&[(KUBERNETES_INDEX, "1")]).unwrap_err();
        assert!(
            no_count.contains("Kubernetes indexed Job: CARDGRADE_SHARDS is not set"),
            "{no_count}"
        );
        let gitlab_zero = read(&[(GITLAB_INDEX, "0"), (GITLAB_TOTAL, "2")]).unwrap_err();
        assert!(gitlab_zero.contains("counts from 1"), "{gitlab_zero}");
        let out_of_range = read(&[(AWS_INDEX, "5"), (AWS_SIZE, "5")]).unwrap_err();
        assert!(
            out_of_range.contains("shard 6 of 5 is out of range"),
            "{out_of_range}"
        );
        let not_a_number = read(&[(AWS_INDEX, "one"), (AWS_SIZE, "5")]).unwrap_err();
        assert!(
            not_a_number.contains("AWS_BATCH_JOB_ARRAY_INDEX=one is not a whole number"),
            "{not_a_number}"
        );
        let disagree = read(&[
            (GITLAB_INDEX, "1"),
            (GITLAB_TOTAL, "2"),
            (AWS_INDEX, "1"),
            (AWS_SIZE, "2"),
        ])
        .unwrap_err();
        assert!(
            disagree
                .contains("an AWS Batch array job and a GitLab parallel job say different shards"),
            "{disagree}"
        );
        // Two engines that agree are no doubt.
        assert_eq!(
            read(&[
                (KUBERNETES_INDEX, "1"),
                (CARDGRADE_INDEX, "1"),
                (SHARDS_VARIABLE, "2")
            ]),
            Ok((2, 2, Engine::Kubernetes))
        );
    }
}
