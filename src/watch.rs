//! `grader check --watch`: grade, then grade again each time a file of the crate is saved,
//! as rustlings watches an exercise. Runs until interrupted.

use std::path::{Component, Path};
use std::process::ExitCode;
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use notify::{Event, EventKind, RecursiveMode, Watcher};

use crate::check::{self, CheckArgs};
use crate::exit::Stop;

/// Saves that come this close together (an editor writing a file in steps, a formatter
/// rewriting several) start one grading. It is waited for after every save, so it is kept
/// short: a burst that outlasts it costs one more grading, never a missed change, as a
/// save during a grading starts the next.
const SETTLE: Duration = Duration::from_millis(100);

pub fn run(args: CheckArgs) -> ExitCode {
    match watch(args) {
        Ok(never) => match never {},
        Err(stop) => stop.report(),
    }
}

/// Grades whenever the crate changes; returns only to say why it cannot watch.
fn watch(args: CheckArgs) -> Result<std::convert::Infallible, Stop> {
    if args.format.is_staff() || args.output.is_some() || args.list {
        return Err(Stop::Usage(
            "--watch re-grades for a person at the terminal: use it with the pretty or terse report, without --output or --list".into(),
        ));
    }
    let root = args.path.canonicalize().map_err(|error| {
        Stop::Usage(format!(
            "{}: {error}: pass the folder of your crate",
            args.path.display()
        ))
    })?;
    let (sender, changes) = channel();
    let watched = root.clone();
    // Watches for as long as this function runs, which is until the grader is stopped.
    let _watcher = notify::recommended_watcher(move |event: notify::Result<Event>| {
        if event.is_ok_and(|event| is_a_save(&watched, &event)) {
            let _ = sender.send(());
        }
    })
    .and_then(|mut watcher| {
        watcher
            .watch(&root, RecursiveMode::Recursive)
            .map(|()| watcher)
    })
    .map_err(|error| Stop::Usage(format!("cannot watch {}: {error}", root.display())))?;
    let once = CheckArgs {
        watch: false,
        ..args
    };
    loop {
        check::run(once.clone());
        eprintln!(
            "\nwatching {} for changes; press Ctrl-C to stop",
            root.display()
        );
        wait_for_a_save(&changes)?;
        eprintln!("\n{} changed: grading again\n", root.display());
    }
}

/// Blocks until a file is saved, then until saves have settled.
fn wait_for_a_save(changes: &Receiver<()>) -> Result<(), Stop> {
    let lost = || Stop::Usage("the file watcher stopped".into());
    changes.recv().map_err(|_| lost())?;
    loop {
        match changes.recv_timeout(SETTLE) {
            Ok(()) => continue,
            Err(RecvTimeoutError::Timeout) => return Ok(()),
            Err(RecvTimeoutError::Disconnected) => return Err(lost()),
        }
    }
}

/// A change to a file of the crate: not in `target/`, not a hidden file or an editor's
/// backup, and not a mere read.
fn is_a_save(root: &Path, event: &Event) -> bool {
    matches!(
        event.kind,
        EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_)
    ) && event.paths.iter().any(|path| is_crate_file(root, path))
}

fn is_crate_file(root: &Path, path: &Path) -> bool {
    let Ok(inside) = path.strip_prefix(root) else {
        return false;
    };
    let mut parts = inside.components().peekable();
    if parts.peek() == Some(&Component::Normal("target".as_ref())) {
        return false;
    }
    inside.components().all(|part| match part {
        Component::Normal(name) => {
            let name = name.to_string_lossy();
            !name.starts_with('.') && !name.ends_with('~')
        }
        _ => true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn only_the_crates_own_files_count_as_saves() {
        let root = PathBuf::from("/work/crate");
        assert!(is_crate_file(&root, &root.join("src/lib.rs")));
        assert!(is_crate_file(&root, &root.join("Cargo.toml")));
        assert!(!is_crate_file(&root, &root.join("target/release/x")));
        assert!(!is_crate_file(&root, &root.join("src/.lib.rs.swp")));
        assert!(!is_crate_file(&root, &root.join("src/lib.rs~")));
        assert!(!is_crate_file(&root, Path::new("/elsewhere/lib.rs")));
    }

    #[test]
    fn saves_in_a_burst_start_one_grading_and_one_after_it_another() {
        let (sender, changes) = channel();
        for _ in 0..5 {
            sender.send(()).unwrap();
        }
        assert!(wait_for_a_save(&changes).is_ok());
        assert!(changes.try_recv().is_err(), "the burst was taken whole");
        let later = std::thread::spawn(move || {
            std::thread::sleep(SETTLE * 3);
            sender.send(()).unwrap();
            sender
        });
        assert!(wait_for_a_save(&changes).is_ok());
        drop(later.join());
        assert!(wait_for_a_save(&changes).is_err(), "the watcher is gone");
    }
}
