//! The reference's side of a check: the answers it gives every listed test, and a watch
//! that stops the grader when it answers past a group's timeout.

use std::time::{Duration, Instant};

use grader_api::Submission;

use crate::exit::Stop;
use crate::grade;
use grader_api::spec::Grading;

use crate::spec::{SpecError, Suite};

/// A watch on the reference answering tests. A reference answer that takes longer than its
/// group's timeout is a spec error; the trusted reference cannot be stopped, so the grader
/// stops, at the timeout where the reference hangs, or as soon as it answers late.
pub(crate) struct ReferenceWatch(std::sync::mpsc::Sender<Option<(String, Instant, Duration)>>);

impl ReferenceWatch {
    pub(crate) fn new() -> ReferenceWatch {
        let (sender, answering) = std::sync::mpsc::channel::<Option<(String, Instant, Duration)>>();
        std::thread::spawn(move || {
            while let Ok(started) = answering.recv() {
                let Some((test, deadline, limit)) = started else {
                    continue;
                };
                // From when the reference started, however late this thread was woken.
                let left = deadline.saturating_duration_since(Instant::now());
                if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
                    answering.recv_timeout(left)
                {
                    reference_too_slow(&test, limit);
                }
            }
        });
        ReferenceWatch(sender)
    }

    /// Runs `answer`, the reference answering test `test` of a group whose timeout is `limit`.
    pub(crate) fn answering<T>(
        &self,
        test: &str,
        limit: Duration,
        answer: impl FnOnce() -> T,
    ) -> T {
        let started = Instant::now();
        let _ = self
            .0
            .send(Some((test.to_string(), started + limit, limit)));
        let answered = answer();
        let _ = self.0.send(None);
        if started.elapsed() > limit {
            reference_too_slow(test, limit);
        }
        answered
    }
}

/// Stops the grader: the reference took longer than test `test`'s group allows.
fn reference_too_slow(test: &str, limit: Duration) -> ! {
    let stop = Stop::Spec(format!(
        "test {test}: the reference took more than its group's timeout of {} ms to answer; give the group a larger `timeout_ms`, or the case less to do",
        limit.as_millis()
    ));
    std::process::exit(i32::from(stop.exit_code_reported()))
}

/// Answers the reference gives to every listed test, and every `expect` they contradict.
pub(crate) fn expectations(
    suite: &Suite,
    reference: &Submission,
) -> (Vec<grade::Expected>, Vec<SpecError>) {
    let watch = ReferenceWatch::new();
    let mut all = Vec::new();
    let mut contradicted = Vec::new();
    for (group, test) in suite.tests() {
        if test.grading != Grading::Listed {
            all.push(Vec::new());
            continue;
        }
        let expected = watch.answering(&test.id, group.timeout, || {
            grade::reference_answers(reference, &*test.request)
        });
        for written in &test.written {
            let answer = expected
                .first()
                .and_then(|(_, replies)| replies.get(written.index));
            if answer.is_some_and(|frame| (written.agrees)(frame)) {
                continue;
            }
            contradicted.push(SpecError {
                file: test.file.clone(),
                location: test.location,
                message: format!(
                    "case `{}` expects {}, but the reference answers {}; fix the `expect`, or remove it to let the reference answer",
                    test.name,
                    written.text,
                    answer
                        .map(|frame| test.request.show(frame))
                        .unwrap_or_else(|| "nothing".into())
                        .replace('\n', "; ")
                ),
            });
        }
        all.push(expected);
    }
    (all, contradicted)
}
