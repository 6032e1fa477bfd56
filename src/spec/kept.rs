//! Mutants staff kept as bugs (`grader spec audit --mutants --keep`), in a file beside the
//! spec they are for: `NAME.mutants.yaml` beside `NAME.yaml`. The spec stays as staff wrote
//! it, comments and all; the file is data the tool writes and a reviewer reads in a diff,
//! and it goes where the spec goes, so a `student_tests` group that names a kept mutant
//! grades the same wherever the spec is copied with it.

use std::path::{Path, PathBuf};

use grader_api::spec::KeptMutant;

/// How a kept file's name ends.
const SUFFIX: &str = ".mutants.yaml";

/// What the file says of itself, above its list.
const HEADER: &str = "# Mutants of the reference kept as bugs by `grader spec audit --mutants --keep`:\n# a `student_tests` group of the spec beside may name them in `bugs:`, as the library's.\n";

/// The kept file of the spec at `spec`.
pub fn beside(spec: &Path) -> PathBuf {
    let stem = spec
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_default();
    spec.with_file_name(format!("{stem}{SUFFIX}"))
}

/// The mutants kept beside the spec file `file` (none beside a built-in spec), each
/// checked to still apply to `assignment`'s reference.
pub(super) fn beside_spec(file: &str, assignment: &str) -> Result<Vec<KeptMutant>, String> {
    if super::built_in::BUILT_IN_SPECS
        .iter()
        .any(|(name, _)| *name == file)
    {
        return Ok(Vec::new());
    }
    let path = beside(Path::new(file));
    let kept = read(&path)?;
    let Some(library) = super::student_tests::library(assignment) else {
        return Ok(kept);
    };
    for mutant in &kept {
        let bug = super::student_tests::kept_bug(mutant);
        crate::mutant::module_source(library, &bug.edits).map_err(|why| {
            format!(
                "{}: the kept mutant `{}` no longer applies to the reference ({why}); keep it again from `grader spec audit --mutants`",
                path.display(),
                mutant.name
            )
        })?;
    }
    Ok(kept)
}

/// Whether `path` is a kept file, not a spec.
pub fn is_kept_file(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|name| name.to_string_lossy().ends_with(SUFFIX))
}

/// The mutants kept in the file at `path`; none when there is no file.
pub fn read(path: &Path) -> Result<Vec<KeptMutant>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(format!("{}: cannot be read: {error}", path.display())),
    };
    if text
        .lines()
        .all(|line| line.trim().is_empty() || line.starts_with('#'))
    {
        return Ok(Vec::new());
    }
    serde_yaml::from_str(&text).map_err(|error| format!("{}: {error}", path.display()))
}

/// Writes `kept` to the file at `path`, whole.
pub fn write(path: &Path, kept: &[KeptMutant]) -> Result<(), String> {
    let list = serde_yaml::to_string(kept).map_err(|error| error.to_string())?;
    std::fs::write(path, format!("{HEADER}{list}"))
        .map_err(|error| format!("cannot write {}: {error}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_keeps_its_mutants_in_a_file_named_after_it() {
        let kept = beside(Path::new("course/hand.yaml"));
        assert_eq!(kept, Path::new("course/hand.mutants.yaml"));
        assert!(is_kept_file(&kept));
        assert!(!is_kept_file(Path::new("course/hand.yaml")));
    }
}
