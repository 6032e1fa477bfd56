//! The reporters that write results for machines and CI: a results file, results on
//! stdout, and GitHub's annotations, job summary and Classroom output. Each writes once,
//! when the run is over, or when it stops before a test ran, so a promised file is always
//! written.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::{Event, Reporter};
use crate::check::args::Format;
use crate::results::Results;
use crate::spec::Suite;
use crate::student_text::StudentText;

/// The results in `format`, written whole to `path`.
pub struct ResultsFile {
    pub format: Format,
    pub path: PathBuf,
    /// The submission's folder, as our JSON names it.
    pub submission: StudentText,
}

/// The results in a machine format, on stdout alone.
pub struct ResultsOnStdout {
    pub format: Format,
    pub submission: StudentText,
}

/// In a GitHub Actions job: an annotation per failed test on stdout, the summary appended
/// to `$GITHUB_STEP_SUMMARY`, and the Classroom result to `$GITHUB_OUTPUT` as `result`.
pub struct Github;

impl Reporter for ResultsFile {
    fn report(&mut self, event: Event<'_>) -> Result<(), String> {
        with_results(event, |results| {
            write_whole(&self.path, &text(self.format, results, &self.submission))
                .map_err(|error| format!("cannot write {}: {error}", self.path.display()))
        })
    }
}

impl Reporter for ResultsOnStdout {
    fn report(&mut self, event: Event<'_>) -> Result<(), String> {
        match event {
            Event::RunFinished { results } => {
                print!("{}", text(self.format, results, &self.submission));
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

impl Reporter for Github {
    fn report(&mut self, event: Event<'_>) -> Result<(), String> {
        with_results(event, |results| {
            super::github_log::commands(&results.github_annotations())
                .map_err(|error| format!("cannot write the annotations: {error}"))?;
            append("GITHUB_STEP_SUMMARY", &results.github_summary())?;
            append(
                "GITHUB_OUTPUT",
                &format!("result={}\n", results.classroom_result()),
            )
        })
    }
}

/// Runs `write` with the results a run finished with, or, when it stopped before any test
/// ran, with results of no test that say why.
fn with_results(
    event: Event<'_>,
    write: impl FnOnce(&Results) -> Result<(), String>,
) -> Result<(), String> {
    match event {
        Event::RunFinished { results } => write(results),
        Event::Stopped { why } => {
            let nothing = Suite::default();
            write(&Results::nothing_graded(
                &nothing,
                why,
                why.into(),
                std::time::Duration::ZERO,
            ))
        }
        _ => Ok(()),
    }
}

/// The results in `format` as a file holds them.
fn text(format: Format, results: &Results, submission: &StudentText) -> String {
    let json = match format {
        Format::Junit => return results.junit_xml(),
        Format::Gradescope => results.gradescope_json(),
        Format::Github => results.classroom_json(),
        Format::Json | Format::Pretty | Format::Terse => results.cardgrade_json(submission),
    };
    serde_json::to_string_pretty(&json).unwrap_or_default() + "\n"
}

/// Appends `text` to the file the environment variable names, if it names one.
fn append(variable: &str, text: &str) -> Result<(), String> {
    let Some(path) = std::env::var_os(variable).filter(|p| !p.is_empty()) else {
        return Ok(());
    };
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut file| file.write_all(text.as_bytes()))
        .map_err(|error| {
            format!(
                "cannot append to ${variable} ({}): {error}",
                Path::new(&path).display()
            )
        })
}

/// Writes `text` to a file beside `path`, then puts it in `path`'s place: whoever reads
/// `path` sees no results or all of them. What is there and is not a file (`/dev/null`,
/// `/dev/stdout`, a pipe) is written into, never replaced: the grader often runs as root.
fn write_whole(path: &Path, text: &str) -> std::io::Result<()> {
    if std::fs::metadata(path).is_ok_and(|there| !there.is_file()) {
        return std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .and_then(|mut there| there.write_all(text.as_bytes()));
    }
    let mut partial = path.as_os_str().to_owned();
    partial.push(format!(".partial-{}", std::process::id()));
    std::fs::write(&partial, text)?;
    std::fs::rename(&partial, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileTypeExt;

    #[test]
    fn results_for_a_pipe_are_written_into_it_and_it_stays_a_pipe() {
        let folder = crate::temp::folder("test-fifo").unwrap();
        let fifo = folder.path().join("results");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
        };
        write_whole(&fifo, "{\"score\": 1}\n").unwrap();
        // Before the reader is waited for: had the pipe been replaced, it would wait forever.
        assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
        assert_eq!(reader.join().unwrap(), "{\"score\": 1}\n");
        let file = folder.path().join("results.json");
        write_whole(&file, "whole\n").unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "whole\n");
    }
}
