//! Diagnosis: the known mistakes (the library's bugs) that explain a submission's wrong
//! answers, check by check. A bug is named for a check only where its answers to it are
//! the submission's on every input where either differs from the reference, or two bugs
//! where the submission's wrong answers are exactly theirs together: a wrong name is worse
//! than none.
//!
//! The bugs' wrong answers are found once, by `grader spec audit`, which grades each bug as
//! a student's crate, and kept in the answers store beside the reference's, keyed as those
//! are by all that decides them. A grading compares with them only where a test failed, in
//! memory: no bug is built or run for it.

use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::PathBuf;

use grader_api::unit::Asked;
use grader_api::wire::{put_varint, take_varint};

use crate::answers::{Store, key};

mod wrong;

use wrong::Answers;
pub use wrong::{Fingerprint, WrongAnswers};

/// Starts every file of known mistakes; a change of layout changes it.
const MAGIC: &[u8] = b"cardgrade known mistakes 1\n";

/// A bug of the library and its wrong answers to one test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownMistake {
    pub name: String,
    pub description: String,
    pub wrong: WrongAnswers,
}

/// The known mistakes that explain a test's wrong answers to one check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnosis {
    /// The check, as a report names it: `has_pair()`.
    pub check: String,
    /// How many wrong answers they explain: all the submission's to the check.
    pub explained: u64,
    /// One bug, or two whose wrong answers together are the submission's; or bugs whose
    /// answers are alike on every input of the test, any of which it may be.
    pub mistakes: Vec<(String, String)>,
    /// Whether `mistakes` are two made together, or alternatives.
    pub together: bool,
}

impl Diagnosis {
    /// What a report says of it: the mistake by its description and name, never an input
    /// or an answer.
    pub fn words(&self) -> String {
        let named = |(name, description): &(String, String)| {
            format!("{} ({name})", description.trim_end_matches('.'))
        };
        let answers = match self.explained {
            1 => "your 1 wrong answer is exactly that".to_string(),
            n => format!(
                "your {} wrong answers are exactly those",
                grader_api::protocol::group_digits(n)
            ),
        };
        let mistakes: Vec<String> = self.mistakes.iter().map(named).collect();
        let of = match (self.together, &mistakes[..]) {
            (_, [one]) => format!("of a known mistake: {one}"),
            (true, [first, second]) => {
                format!("of two known mistakes made together: {first}, and {second}")
            }
            (_, all) => format!(
                "of each of {} known mistakes, alike on these inputs: {}",
                all.len(),
                all.join("; or ")
            ),
        };
        format!("{}: {answers} {of}", self.check)
    }
}

/// For each check the submission got wrong, the known mistakes that explain it, if any.
pub fn diagnose(wrong: &WrongAnswers, known: &[KnownMistake]) -> Vec<Diagnosis> {
    if wrong.unknown {
        return Vec::new();
    }
    let usable: Vec<&KnownMistake> = known.iter().filter(|bug| !bug.wrong.unknown).collect();
    let named = |bug: &KnownMistake| (bug.name.clone(), bug.description.clone());
    let mut found = Vec::new();
    for (check, answers) in &wrong.by_check {
        if answers.is_empty() {
            continue;
        }
        let alone: Vec<(String, String)> = usable
            .iter()
            .filter(|bug| bug.wrong.of_check(check) == Some(answers))
            .map(|bug| named(bug))
            .collect();
        let (mistakes, together) = match alone.is_empty() {
            false => (alone, false),
            true => match two_together(answers, check, &usable) {
                Some((first, second)) => (vec![named(first), named(second)], true),
                None => continue,
            },
        };
        found.push(Diagnosis {
            check: check.clone(),
            explained: answers.len() as u64,
            mistakes,
            together,
        });
    }
    found
}

/// A group's wrong answers and the library's, its tests' put together, and what explains
/// them: `tests` holds, for each test of the group, its wrong answers (`None` where it
/// passed) and the library's known mistakes kept for it.
pub fn diagnose_group(tests: &[(Option<&WrongAnswers>, Vec<KnownMistake>)]) -> Vec<Diagnosis> {
    // A group of one test, as bulk groups are: its answers as they are, not copied.
    if let [(answers, known)] = tests {
        return answers.map_or_else(Vec::new, |answers| diagnose(answers, known));
    }
    let mut wrong = WrongAnswers::default();
    let mut library: Vec<KnownMistake> = Vec::new();
    for (number, (answers, known)) in tests.iter().enumerate() {
        if let Some(answers) = answers {
            wrong.absorb(answers.of_test(number));
        }
        for mistake in known {
            let of_test = mistake.wrong.of_test(number);
            match library.iter_mut().find(|m| m.name == mistake.name) {
                Some(same) => same.wrong.absorb(of_test),
                None => library.push(KnownMistake {
                    wrong: of_test,
                    ..mistake.clone()
                }),
            }
        }
    }
    diagnose(&wrong, &library)
}

/// Two bugs, neither explaining `answers` alone, whose wrong answers to `check` together
/// are exactly them: each agrees with them wherever it is wrong, and between them they
/// are wrong on every input they are. The first such pair, if one pair alone fits.
fn two_together<'a>(
    answers: &Answers,
    check: &str,
    known: &[&'a KnownMistake],
) -> Option<(&'a KnownMistake, &'a KnownMistake)> {
    let agreeing: Vec<(&KnownMistake, &Answers)> = known
        .iter()
        .filter_map(|bug| Some((*bug, bug.wrong.of_check(check)?)))
        .filter(|(_, theirs)| {
            theirs.len() < answers.len()
                && theirs
                    .iter()
                    .all(|(input, answer)| answers.get(input) == Some(answer))
        })
        .collect();
    let mut pairs = agreeing.iter().enumerate().flat_map(|(at, first)| {
        agreeing[at + 1..]
            .iter()
            .filter(move |second| {
                answers
                    .iter()
                    .all(|(input, _)| first.1.contains(input) || second.1.contains(input))
            })
            .map(move |second| (first.0, second.0))
    });
    let pair = pairs.next()?;
    // Two pairs that fit are two stories: neither is told.
    pairs.next().is_none().then_some(pair)
}

/// Where the known mistakes of a test are kept: in the answers store, under what decides
/// its answers (not its name, which a student's view of a hidden group changes).
fn path_of(store: &Store, request: &dyn Asked) -> PathBuf {
    let hash = crate::compile::stable_hash(&key(request));
    store.file(&format!("{}-{hash:016x}.known", request.assignment()))
}

/// Keeps the known mistakes of the test that asks `request`, all of the library's for it,
/// written whole or not at all.
pub fn keep(store: &Store, request: &dyn Asked, known: &[KnownMistake]) -> std::io::Result<()> {
    let mut body = Vec::new();
    let mut put = |out: &mut Vec<u8>, value: u64| {
        // Writing into memory cannot fail.
        let _ = put_varint(out, value);
    };
    let put_bytes = |out: &mut Vec<u8>, bytes: &[u8], put: &mut dyn FnMut(&mut Vec<u8>, u64)| {
        put(out, bytes.len() as u64);
        out.extend_from_slice(bytes);
    };
    put(&mut body, known.len() as u64);
    for bug in known {
        put_bytes(&mut body, bug.name.as_bytes(), &mut put);
        put_bytes(&mut body, bug.description.as_bytes(), &mut put);
        put(&mut body, u64::from(bug.wrong.unknown));
        put(&mut body, bug.wrong.by_check.len() as u64);
        for (check, answers) in &bug.wrong.by_check {
            put_bytes(&mut body, check.as_bytes(), &mut put);
            put(&mut body, answers.len() as u64);
            let mut last = 0;
            for (input, answer) in answers.iter() {
                put(&mut body, input - last);
                last = input;
                put_bytes(&mut body, answer, &mut put);
            }
        }
    }
    let mut file = MAGIC.to_vec();
    let key = key(request);
    put(&mut file, key.len() as u64);
    file.extend_from_slice(&key);
    file.extend_from_slice(&lz4_flex::compress_prepend_size(&body));
    store.write_whole(&path_of(store, request), &file)
}

/// The known mistakes kept for the test that asks `request`; `None` where none are, or
/// the file is not what `keep` writes for it.
pub fn kept(store: &Store, request: &dyn Asked) -> Option<Vec<KnownMistake>> {
    std::fs::read(path_of(store, request))
        .ok()
        .and_then(|file| read(&file, request, None))
}

/// The known mistakes kept for the test that asks `request`, as far as they can explain a
/// group's wrong answers: of the checks in `wrong` (each with this test's count of wrong
/// answers, 0 where only another test of the group is wrong), and for each no more answers
/// than that count (a bug wrong more often explains none of them, and is read as such).
pub fn kept_for(
    store: &Store,
    request: &dyn Asked,
    wrong: &BTreeMap<&str, usize>,
) -> Option<Vec<KnownMistake>> {
    std::fs::read(path_of(store, request))
        .ok()
        .and_then(|file| read(&file, request, Some(wrong)))
}

/// Whether known mistakes are kept for the test that asks `request`: a look at the file's
/// name, not its content, before a grading holds its wrong answers for them.
pub fn is_kept(store: &Store, request: &dyn Asked) -> bool {
    path_of(store, request).is_file()
}

/// The file of known mistakes kept for the test that asks `request`, where one is and
/// reads back whole: what a package carries so that it diagnoses offline.
pub fn kept_file(store: &Store, request: &dyn Asked) -> Option<PathBuf> {
    kept(store, request).map(|_| path_of(store, request))
}

fn read(
    file: &[u8],
    request: &dyn Asked,
    wanted: Option<&BTreeMap<&str, usize>>,
) -> Option<Vec<KnownMistake>> {
    let mut rest = file.strip_prefix(MAGIC)?;
    let key_length = usize::try_from(take_varint(&mut rest).ok()?).ok()?;
    if rest.get(..key_length)? != key(request).as_slice() {
        return None;
    }
    let body = lz4_flex::decompress_size_prepended(&rest[key_length..]).ok()?;
    let mut body = body.as_slice();
    let count = |body: &mut &[u8]| -> Option<usize> {
        let value = take_varint(body).ok()?;
        // No count can be more than the bytes left: a damaged file is not believed.
        usize::try_from(value).ok().filter(|&n| n <= body.len())
    };
    let bytes = |body: &mut &[u8]| -> Option<Vec<u8>> {
        let length = count(body)?;
        let mut bytes = vec![0; length];
        body.read_exact(&mut bytes).ok()?;
        Some(bytes)
    };
    let text = |body: &mut &[u8]| String::from_utf8(bytes(body)?).ok();
    let mut known = Vec::new();
    for _ in 0..count(&mut body)? {
        let name = text(&mut body)?;
        let description = text(&mut body)?;
        let mut wrong = WrongAnswers {
            unknown: take_varint(&mut body).ok()? == 1,
            ..WrongAnswers::default()
        };
        for _ in 0..count(&mut body)? {
            let check = text(&mut body)?;
            let answered = count(&mut body)?;
            let limit = wanted.map(|wanted| wanted.get(check.as_str()).copied());
            // Past what could explain the submission's, the answers are skipped, not held.
            let held = match limit {
                None => true,
                Some(None) => false,
                Some(Some(most)) => answered <= most,
            };
            let mut answers = Answers::default();
            let mut input = 0u64;
            for _ in 0..answered {
                input = input.checked_add(take_varint(&mut body).ok()?)?;
                let length = count(&mut body)?;
                if held {
                    answers.put(input, &body[..length]);
                }
                body = &body[length..];
            }
            match (held, limit) {
                (true, _) => {
                    wrong.by_check.insert(check, answers);
                }
                (false, Some(Some(_))) => {
                    wrong.beyond.insert(check);
                }
                (false, _) => {}
            }
        }
        known.push(KnownMistake {
            name,
            description,
            wrong,
        });
    }
    body.is_empty().then_some(known)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wrong(entries: &[(&str, u64, &str)]) -> WrongAnswers {
        let mut wrong = WrongAnswers::default();
        for (check, input, answer) in entries {
            wrong.note(*input, check, answer.as_bytes());
        }
        wrong
    }

    fn bug(name: &str, entries: &[(&str, u64, &str)]) -> KnownMistake {
        KnownMistake {
            name: name.into(),
            description: format!("{name} described"),
            wrong: wrong(entries),
        }
    }

    fn names(found: &[Diagnosis]) -> Vec<(&str, Vec<String>, bool)> {
        found
            .iter()
            .map(|d| {
                let names = d.mistakes.iter().map(|(name, _)| name.clone()).collect();
                (d.check.as_str(), names, d.together)
            })
            .collect()
    }

    #[test]
    fn a_bug_is_named_only_where_its_wrong_answers_are_exactly_the_submissions() {
        let library = [
            bug("pair", &[("c0", 3, "true"), ("c0", 9, "true")]),
            bug("flush", &[("c1", 4, "false")]),
            bug("pair-other", &[("c0", 3, "true"), ("c0", 9, "false")]),
        ];
        let student = wrong(&[("c0", 3, "true"), ("c0", 9, "true"), ("c1", 4, "false")]);
        assert_eq!(
            names(&diagnose(&student, &library)),
            [
                ("c0", vec!["pair".to_string()], false),
                ("c1", vec!["flush".to_string()], false)
            ]
        );
        // One more wrong answer, or one fewer, and the bug is not the explanation.
        let more = wrong(&[("c0", 3, "true"), ("c0", 9, "true"), ("c0", 11, "true")]);
        assert!(diagnose(&more, &library).is_empty());
        let fewer = wrong(&[("c0", 3, "true")]);
        assert!(diagnose(&fewer, &library).is_empty());
        // The same inputs, another answer.
        let other = wrong(&[("c1", 4, "true")]);
        assert!(diagnose(&other, &library).is_empty());
    }

    #[test]
    fn two_bugs_are_named_together_where_their_wrong_answers_make_the_submissions() {
        let library = [
            bug("a", &[("c0", 1, "x"), ("c0", 2, "x")]),
            bug("b", &[("c0", 2, "x"), ("c0", 5, "y")]),
            bug("c", &[("c0", 7, "z")]),
        ];
        let student = wrong(&[("c0", 1, "x"), ("c0", 2, "x"), ("c0", 5, "y")]);
        assert_eq!(
            names(&diagnose(&student, &library)),
            [("c0", vec!["a".to_string(), "b".to_string()], true)]
        );
        let and_more = wrong(&[
            ("c0", 1, "x"),
            ("c0", 2, "x"),
            ("c0", 5, "y"),
            ("c0", 6, "y"),
        ]);
        assert!(diagnose(&and_more, &library).is_empty());
    }

    #[test]
    fn a_panic_is_a_panic_wherever_it_happened_and_a_partial_answer_names_nothing() {
        let mut here = vec![grader_api::protocol::PANICKED];
        here.extend_from_slice(b"at src/lib.rs:3:9");
        let mut there = vec![grader_api::protocol::PANICKED];
        there.extend_from_slice(b"at src/hand.rs:40:1");
        let mut student = WrongAnswers::default();
        student.note(8, "c0", &here);
        let mut library = WrongAnswers::default();
        library.note(8, "c0", &there);
        let known = [KnownMistake {
            name: "panics".into(),
            description: String::new(),
            wrong: library,
        }];
        assert_eq!(diagnose(&student, &known).len(), 1);
        student.unknown();
        assert!(diagnose(&student, &known).is_empty());
    }

    #[test]
    fn a_groups_tests_are_put_together_so_one_listed_case_alone_names_nothing() {
        let pair = bug("pair", &[("has_pair()", 0, "true")]);
        let loose = bug("loose", &[("has_pair()", 0, "true")]);
        let loose_too = bug("loose", &[("has_pair()", 0, "true")]);
        // Alike on the first case, the two part on the second, which only one fails.
        let student = wrong(&[("has_pair()", 0, "true")]);
        let found = diagnose_group(&[(Some(&student), vec![pair, loose]), (None, vec![loose_too])]);
        assert_eq!(
            names(&found),
            [("has_pair()", vec!["pair".to_string()], false)]
        );
    }

    /// Read for a group's wrong answers, a bug wrong more often than the submission on a
    /// test, even one the submission passed, explains none of that check: its answers are
    /// skipped, and it is named on no other test's alone.
    #[test]
    fn a_bug_read_for_fewer_wrong_answers_than_it_has_explains_none_of_them() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::at(dir.path());
        let suite = crate::spec::load(&[], &[], None).unwrap();
        let mut requests = suite.tests().map(|(_, test)| &*test.request);
        let (passed, failed) = (requests.next().unwrap(), requests.next().unwrap());
        // Read whole, `loose` is wrong on the passed test; left unread there, it must not
        // seem to be right on it.
        let exact = |entries| bug("exact", entries);
        keep(
            &store,
            passed,
            &[bug("loose", &[("c0", 1, "yes")]), exact(&[])],
        )
        .unwrap();
        let both = [
            bug("loose", &[("c0", 5, "yes")]),
            exact(&[("c0", 5, "yes")]),
        ];
        keep(&store, failed, &both).unwrap();
        let student = wrong(&[("c0", 5, "yes")]);
        let read =
            |request, count| kept_for(&store, request, &BTreeMap::from([("c0", count)])).unwrap();
        let found = diagnose_group(&[(None, read(passed, 0)), (Some(&student), read(failed, 1))]);
        assert_eq!(names(&found), [("c0", vec!["exact".to_string()], false)]);
        // Read whole, the same.
        let whole = |request| kept(&store, request).unwrap();
        let found = diagnose_group(&[(None, whole(passed)), (Some(&student), whole(failed))]);
        assert_eq!(names(&found), [("c0", vec!["exact".to_string()], false)]);
    }

    #[test]
    fn answers_stay_in_order_of_input_however_they_come_the_later_winning() {
        let mut answers = Answers::default();
        for (input, answer) in [(5, "e"), (9, "i"), (1, "a"), (5, "E")] {
            answers.put(input, answer.as_bytes());
        }
        let mut later = Answers::default();
        for (input, answer) in [(0, "z"), (9, "I"), (12, "l")] {
            later.put(input, answer.as_bytes());
        }
        answers.merge(&later);
        let held: Vec<(u64, &[u8])> = answers.iter().collect();
        let expected: [(u64, &[u8]); 5] = [(0, b"z"), (1, b"a"), (5, b"E"), (9, b"I"), (12, b"l")];
        assert_eq!(held, expected);
        assert_eq!((answers.get(5), answers.get(6)), (Some(&b"E"[..]), None));
        assert!(answers.contains(12) && !answers.contains(13));
    }

    #[test]
    fn kept_mistakes_read_back_as_written_and_a_damaged_file_is_not_believed_nor_packaged() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::at(dir.path());
        let suite = crate::spec::load(&[], &[], None).unwrap();
        let mut tests = suite.tests().map(|(_, test)| &*test.request);
        let (request, another) = (tests.next().unwrap(), tests.next().unwrap());
        let known = vec![bug("pair", &[("c0", 3, "true"), ("c2", 1_000_000, "no")])];
        keep(&store, request, &known).unwrap();
        assert_eq!(kept(&store, request), Some(known.clone()));
        assert_eq!(kept(&store, another), None, "another test's");
        let path = kept_file(&store, request).expect("what a package carries");
        assert_eq!(kept_file(&store, another), None);
        let mut bytes = std::fs::read(&path).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0xff;
        std::fs::write(&path, &bytes).unwrap();
        assert_ne!(kept(&store, request), Some(known));
        bytes.pop();
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(
            kept_file(&store, request),
            None,
            "a cut file is not packaged"
        );
    }
}
