//! `grader spec split`: the student's copy of a staff spec, without the groups students may
//! not see (`hidden`, `after_due_date`, `after_published`). Staff keep the full spec for
//! grading (`--spec`) and hand out the copy.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::exit;
use crate::spec::{self, Visibility, kept};

#[derive(Debug, clap::Args)]
pub struct SplitArgs {
    /// The staff spec files (or folders of them) to copy.
    #[arg(required = true, value_name = "SPEC")]
    pub specs: Vec<PathBuf>,
    /// The folder the student's copies are written to, one per spec, under the same name.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

pub fn run(args: SplitArgs) -> ExitCode {
    exit::done_or_usage(split_all(&args))
}

fn split_all(args: &SplitArgs) -> Result<(), String> {
    let files = spec::spec_files(&args.specs)?;
    std::fs::create_dir_all(&args.out)
        .map_err(|error| format!("cannot make {}: {error}", args.out.display()))?;
    for file in files {
        println!("{}", split(&file, &args.out)?);
    }
    Ok(())
}

/// Writes the student's copy of `file` into `out`, and says what it left out.
fn split(file: &Path, out: &Path) -> Result<String, String> {
    let name = file.display().to_string();
    let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read {name}: {e}"))?;
    let suite = spec::parse(&name, &text, None).map_err(|e| e.to_string())?;
    let withheld: Vec<&str> = suite
        .groups
        .iter()
        .filter(|group| group.visibility != Visibility::Visible)
        .map(|group| group.name.as_str())
        .collect();
    let copy = without_groups(&text, &withheld, suite.groups.len());
    let target = out.join(file.file_name().unwrap_or(file.as_os_str()));
    // Mutants kept beside the spec go with the copy while a group students see names them.
    let names_kept = suite.groups.iter().any(|group| {
        group.visibility == Visibility::Visible
            && group
                .student_tests
                .as_ref()
                .is_some_and(|setting| !setting.kept.is_empty())
    });
    if names_kept {
        let (from, to) = (kept::beside(file), kept::beside(&target));
        std::fs::copy(&from, &to)
            .map_err(|e| format!("cannot copy {} to {}: {e}", from.display(), to.display()))?;
    }
    // The copy must load, and hold only what students may see.
    let kept = spec::parse(&target.display().to_string(), &copy, None)
        .map_err(|e| format!("the copy of {name} does not load ({e}); please report this"))?;
    if kept
        .groups
        .iter()
        .any(|g| g.visibility != Visibility::Visible)
    {
        return Err(format!(
            "the copy of {name} still holds a group students may not see; please report this"
        ));
    }
    std::fs::write(&target, copy).map_err(|e| format!("cannot write {}: {e}", target.display()))?;
    let left_out = match withheld.as_slice() {
        [] => "nothing".to_string(),
        names => names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", "),
    };
    Ok(format!(
        "{}: {} of {} groups, leaving out {left_out}",
        target.display(),
        kept.groups.len(),
        suite.groups.len()
    ))
}

/// `text` without the group blocks named in `names`, out of `groups` in all; with none
/// left, `groups: []`.
pub fn without_groups(text: &str, names: &[&str], groups: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut dropped = vec![false; lines.len()];
    let mut from = 0;
    for name in names {
        let Some((item, indent)) = spec::group_item(text, name, from) else {
            continue;
        };
        // The comments just above a group are about it.
        let start = (0..item)
            .rev()
            .take_while(|&i| lines[i].trim_start().starts_with('#'))
            .last()
            .unwrap_or(item);
        let end = (item + 1..lines.len())
            .find(|&i| {
                let line = lines[i];
                let depth = line.len() - line.trim_start().len();
                !line.trim().is_empty() && depth <= indent
            })
            .unwrap_or(lines.len());
        dropped[start..end].iter_mut().for_each(|d| *d = true);
        from = item;
    }
    let mut out: Vec<String> = lines
        .iter()
        .zip(&dropped)
        .filter(|(_, dropped)| !**dropped)
        .map(|(line, _)| line.to_string())
        .collect();
    if names.len() == groups
        && let Some(line) = out.iter_mut().find(|l| l.trim_end() == "groups:")
    {
        *line = "groups: []".into();
    }
    out.join("\n") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = "# header\ngroups:\n  - name: seen\n    points: 1\n    cases:\n      - { name: a }\n\n  # the secret group\n  - name: secret\n    visibility: hidden\n    cases:\n      - { name: b }\n  - { name: flow, visibility: hidden }\n  - name: last\n    points: 2\n";

    #[test]
    fn the_named_blocks_go_and_the_rest_stays_as_written() {
        let copy = without_groups(SPEC, &["secret", "flow"], 4);
        assert_eq!(
            copy,
            "# header\ngroups:\n  - name: seen\n    points: 1\n    cases:\n      - { name: a }\n\n  - name: last\n    points: 2\n"
        );
    }

    #[test]
    fn with_every_group_gone_the_list_is_empty() {
        let copy = without_groups("groups:\n  - name: a\n    points: 1\n", &["a"], 1);
        assert_eq!(copy, "groups: []\n");
    }
}
