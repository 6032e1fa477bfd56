//! `grader batch merge`: the results of a batch's shards joined into one folder, once the
//! shards are known to be the whole class, each submission in one, graded the same way.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::class_report;
use super::folder::{
    Graded, LOG, MANIFEST, append_log, results_file, results_named, write_atomically,
};
use super::gradebook::gradebook;
use super::manifest::Manifest;
use super::shard::shard_of;
use crate::student_text::StudentText;

#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// The results folders of a batch's shards (`grader batch --shard K/N`).
    #[arg(required = true, value_name = "SHARD")]
    pub shards: Vec<PathBuf>,
    /// The folder that gets every submission's results, the gradebook and the report.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Merge the shards given even if some shard, or some submission's results, is
    /// missing: the gradebook lists the missing submissions as not graded.
    #[arg(long)]
    pub partial: bool,
}

fn manifest(shard: &Path) -> Result<Manifest, String> {
    let path = shard.join(MANIFEST);
    let text = std::fs::read_to_string(&path).map_err(|e| {
        format!(
            "cannot read {}: {e}; pass the --out folders of grader batch",
            path.display()
        )
    })?;
    serde_json::from_str(&text).map_err(|e| {
        format!(
            "{} is not a batch's of this grader: {e}; grade the shard again with this grader",
            path.display()
        )
    })
}

/// Submissions' names in a line; an empty shard's, said.
fn listed<'n>(names: impl IntoIterator<Item = &'n StudentText>) -> String {
    let line = StudentText::joined(names, ", ");
    if line.is_empty() {
        return "no submission".into();
    }
    line.on_a_line()
}

/// The first student two shards' rosters time differently, in words: a merged gradebook
/// would hold late penalties from both.
fn first_difference(
    first: &Option<BTreeMap<StudentText, Option<String>>>,
    other: &Option<BTreeMap<StudentText, Option<String>>>,
) -> String {
    let (Some(first), Some(other)) = (first, other) else {
        return "one was graded with a roster and the other without".to_string();
    };
    // A time is a roster's cell that read as one.
    let shown = |time: Option<&Option<String>>| match time {
        Some(Some(time)) => StudentText::from(time.as_str()).on_a_line(),
        _ => "no time".to_string(),
    };
    first
        .keys()
        .chain(other.keys())
        .find(|name| first.get(*name) != other.get(*name))
        .map_or_else(String::new, |name| {
            format!(
                "{}: {} and {}",
                name.on_a_line(),
                shown(first.get(name)),
                shown(other.get(name))
            )
        })
}

/// `K/N` as a shard is named.
fn shard_name((k, n): (usize, usize)) -> String {
    format!("{k}/{n}")
}

pub fn merged(args: &MergeArgs) -> Result<String, String> {
    let manifests: Vec<Manifest> = args
        .shards
        .iter()
        .map(|shard| manifest(shard))
        .collect::<Result<_, _>>()?;
    let first = &manifests[0];
    let total = first.shard.as_ref().map_or(1, |shard| shard.count);
    for (shard, manifest) in args.shards.iter().zip(&manifests).skip(1) {
        if manifest.graded_with != first.graded_with {
            return Err(format!(
                "{} was graded with `{}` and {} with `{}` (or other specs): merge shards graded the same way",
                args.shards[0].display(),
                first.graded_with.check_options.join(" "),
                shard.display(),
                manifest.graded_with.check_options.join(" ")
            ));
        }
        if manifest.class != first.class
            || manifest.shard.as_ref().map_or(1, |shard| shard.count) != total
        {
            return Err(format!(
                "{} and {} are shards of different classes: merge the shards of one batch",
                args.shards[0].display(),
                shard.display()
            ));
        }
        if manifest.submission_times != first.submission_times {
            return Err(format!(
                "{} and {} took submission times from different rosters ({}): grade every shard with one --roster (--resume grades again only the students whose time changed)",
                args.shards[0].display(),
                shard.display(),
                first_difference(&first.submission_times, &manifest.submission_times)
            ));
        }
    }
    // A shard cut otherwise (by a grader that cut by place in the listing) would leave some
    // students in no shard or in two.
    for (shard, manifest) in args.shards.iter().zip(&manifests) {
        let Some(cut) = &manifest.shard else { continue };
        let by_name: Vec<&StudentText> = first
            .class
            .iter()
            .filter(|name| cut.holds(name.raw_for_comparison()))
            .collect();
        if manifest.submissions.iter().collect::<Vec<_>>() != by_name {
            return Err(format!(
                "{} holds {}, where shard {} by name holds {}: it was cut otherwise; grade it again with this grader",
                shard.display(),
                listed(&manifest.submissions),
                shard_name((cut.number, cut.count)),
                listed(by_name)
            ));
        }
    }
    // Overlap is refused even with --partial: which of two results counts is not ours to say.
    let mut seen: Vec<(&StudentText, &Path)> = Vec::new();
    for (shard, manifest) in args.shards.iter().zip(&manifests) {
        for name in &manifest.submissions {
            if let Some((_, other)) = seen.iter().find(|(seen, _)| *seen == name) {
                return Err(format!(
                    "{} and {} both hold {}: merge each shard once",
                    other.display(),
                    shard.display(),
                    name.on_a_line()
                ));
            }
            seen.push((name, shard));
        }
    }
    let mut missing: Vec<String> = Vec::new();
    for k in 1..=total {
        if !manifests
            .iter()
            .any(|m| m.shard.as_ref().map_or(1, |shard| shard.number) == k)
        {
            let names = first
                .class
                .iter()
                .filter(|name| shard_of(name.raw_for_comparison(), total) == k);
            missing.push(format!(
                "shard {} ({})",
                shard_name((k, total)),
                listed(names)
            ));
        }
    }
    for (shard, manifest) in args.shards.iter().zip(&manifests) {
        let unresulted: Vec<&StudentText> = manifest
            .submissions
            .iter()
            .filter(|name| results_named(shard, name).is_none())
            .collect();
        if !unresulted.is_empty() {
            missing.push(format!(
                "the results of {} in {}",
                listed(unresulted),
                shard.display()
            ));
        }
    }
    if !missing.is_empty() && !args.partial {
        return Err(format!(
            "the shards are not the whole class: missing {}; grade what is missing (grader batch --resume), or pass --partial to merge what there is",
            missing.join("; ")
        ));
    }

    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("cannot make {}: {e}", args.out.display()))?;
    for (shard, manifest) in args.shards.iter().zip(&manifests) {
        for name in &manifest.submissions {
            if let Some(results) = results_named(shard, name) {
                let text = serde_json::to_string_pretty(&results).unwrap_or_default() + "\n";
                write_atomically(&args.out, &results_file(name), &text)?;
            }
        }
        if let Ok(log) = std::fs::read_to_string(shard.join(LOG)) {
            append_log(&args.out, &log);
        }
    }
    let whole = Manifest {
        shard: None,
        class: first.class.clone(),
        submissions: first.class.clone(),
        graded_with: first.graded_with.clone(),
        submission_times: first.submission_times.clone(),
    };
    write_atomically(
        &args.out,
        MANIFEST,
        &(serde_json::to_string_pretty(&whole).unwrap_or_default() + "\n"),
    )?;
    let class: Graded = first
        .class
        .iter()
        .map(|name| (name.clone(), results_named(&args.out, name)))
        .collect();
    let gradebook = gradebook(&args.out, &class)?;
    let report = class_report::write(&args.out, &class)?;
    let graded = class.iter().filter(|(_, r)| r.is_some()).count();
    let mut said = format!(
        "merged {graded} submissions of {} from {} shards into {} and {}",
        class.len(),
        args.shards.len(),
        gradebook.display(),
        report.display()
    );
    if !missing.is_empty() {
        said.push_str(&format!("; missing {}", missing.join("; ")));
    }
    Ok(said)
}
