//! `grader batch k8s-job`: a Kubernetes indexed Job that grades a class in N shards, a pod
//! each, every pod `grader batch --shard auto` over the class on a shared volume.

use serde::Serialize;

use super::shard::SHARDS_VARIABLE;

/// Where the Job's pods mount the volume claim: the class in `class/`, and each shard's
/// results in `results-INDEX/` beside it.
const MOUNT: &str = "/grading";

#[derive(Debug, clap::Args)]
pub struct K8sJobArgs {
    /// How many shards: the Job's completions, one pod a shard.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub shards: u32,
    /// The container image: `grader` on its PATH, and the Rust toolchain it builds
    /// submissions with.
    #[arg(long)]
    pub image: String,
    /// Pods running at once (default: every shard at once).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub parallelism: Option<u32>,
    /// The PersistentVolumeClaim with the class in `class/`; each shard writes its results
    /// to `results-INDEX/` on it, for `grader batch merge results-*`.
    #[arg(long, value_name = "NAME", default_value = "cardgrade")]
    pub claim: String,
    /// The Job's name.
    #[arg(long, value_name = "NAME", default_value = "cardgrade-batch")]
    pub name: String,
    /// Submissions each pod grades at once.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub jobs: usize,
    /// Options for each `grader check` (`-- --spec staff/ --assignment NAME`).
    #[arg(last = true, value_name = "CHECK OPTIONS")]
    pub check: Vec<String>,
}

// The Job as the API server reads it: only the fields this Job sets.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Job {
    api_version: &'static str,
    kind: &'static str,
    metadata: Metadata,
    spec: JobSpec,
}

#[derive(Serialize)]
struct Metadata {
    name: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JobSpec {
    completion_mode: &'static str,
    completions: u32,
    parallelism: u32,
    template: PodTemplate,
}

#[derive(Serialize)]
struct PodTemplate {
    spec: PodSpec,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PodSpec {
    restart_policy: &'static str,
    containers: Vec<Container>,
    volumes: Vec<Volume>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Container {
    name: &'static str,
    image: String,
    command: Vec<String>,
    env: Vec<EnvVar>,
    volume_mounts: Vec<VolumeMount>,
}

#[derive(Serialize)]
struct EnvVar {
    name: &'static str,
    value: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct VolumeMount {
    name: &'static str,
    mount_path: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Volume {
    name: &'static str,
    persistent_volume_claim: ClaimSource,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ClaimSource {
    claim_name: String,
}

/// Refuses a name Kubernetes would: `what` names the option. A Job's name labels its pods,
/// so it must be a DNS label (RFC 1123); a claim's, a DNS subdomain.
fn kubernetes_name(what: &str, name: &str, dots: bool, longest: usize) -> Result<(), String> {
    let allowed =
        |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || (dots && c == '.');
    let ends = |c: Option<char>| c.is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
    if name.len() > longest
        || !name.chars().all(allowed)
        || !ends(name.chars().next())
        || !ends(name.chars().last())
    {
        return Err(format!(
            "{what} `{name}` is not a Kubernetes name: at most {longest} lowercase letters, digits and '-'{}, beginning and ending with a letter or digit",
            if dots { " or '.'" } else { "" }
        ));
    }
    Ok(())
}

/// The Job's YAML.
fn manifest(args: &K8sJobArgs) -> Result<String, String> {
    kubernetes_name("--name", &args.name, false, 63)?;
    kubernetes_name("--claim", &args.claim, true, 253)?;
    if args.image.trim().is_empty() || args.image.chars().any(char::is_whitespace) {
        return Err(format!(
            "--image `{}` is not an image reference",
            args.image
        ));
    }
    let mut command: Vec<String> = [
        "grader",
        "batch",
        &format!("{MOUNT}/class"),
        "--out",
        // Kubernetes puts each pod's index in its own $(JOB_COMPLETION_INDEX).
        &format!("{MOUNT}/results-$(JOB_COMPLETION_INDEX)"),
        "--shard",
        "auto",
        "--jobs",
        &args.jobs.max(1).to_string(),
        // A pod the Job starts again keeps what its last attempt graded.
        "--resume",
        "--",
    ]
    .map(String::from)
    .to_vec();
    command.extend(args.check.iter().cloned());
    let job = Job {
        api_version: "batch/v1",
        kind: "Job",
        metadata: Metadata {
            name: args.name.clone(),
        },
        spec: JobSpec {
            completion_mode: "Indexed",
            completions: args.shards,
            parallelism: args.parallelism.unwrap_or(args.shards),
            template: PodTemplate {
                spec: PodSpec {
                    // Never, not OnFailure: a shard that failed is a pod to read, not one
                    // to restart in place.
                    restart_policy: "Never",
                    containers: vec![Container {
                        name: "grader",
                        image: args.image.clone(),
                        command,
                        env: vec![EnvVar {
                            name: SHARDS_VARIABLE,
                            value: args.shards.to_string(),
                        }],
                        volume_mounts: vec![VolumeMount {
                            name: "grading",
                            mount_path: MOUNT,
                        }],
                    }],
                    volumes: vec![Volume {
                        name: "grading",
                        persistent_volume_claim: ClaimSource {
                            claim_name: args.claim.clone(),
                        },
                    }],
                },
            },
        },
    };
    serde_yaml::to_string(&job).map_err(|e| format!("cannot write the Job: {e}"))
}

pub fn print(args: &K8sJobArgs) -> Result<(), String> {
    let job = manifest(args)?;
    crate::exit::end_quietly_when_the_reader_goes();
    print!("{job}");
    Ok(())
}
