//! The submissions of a batch as staff get them: a folder of crates, a folder of
//! per-student zips, or one archive of the class as an LMS exports it (Canvas's "Download
//! Submissions", a zip of per-student zips; Gradescope's "Export Submissions", a folder per
//! submission). Archives are unpacked under the results folder, safely: no path outside,
//! no link, and limits on entries and bytes, counted as they are written.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use super::folder::Submission;
use crate::student_text::StudentText;
use crate::zip::{Limits, UnpackError};

/// Where archives are unpacked, inside the batch's results folder.
const UNPACKED: &str = ".unpacked";

/// One student's zip: far more than a crate needs.
const STUDENT: Limits = Limits {
    entries: 10_000,
    bytes: 256 << 20,
};
/// A whole class's archive.
const CLASS: Limits = Limits {
    entries: 500_000,
    bytes: 16 << 30,
};

/// The submissions `path` holds, in name order: unpacked under `out` where they are zips.
/// Those whose names are one name to a file system that ignores case or Unicode's forms
/// of a letter are refused, named, and the others graded: their results would be one file.
pub fn submissions(path: &Path, out: &Path) -> Result<Vec<Submission>, String> {
    let unpacked = out.join(UNPACKED);
    let dir = if path.is_file() {
        let class = unpacked.join(".class");
        remove(&class)?;
        unpack(path, &class, CLASS).map_err(|e| e.to_string())?;
        inside_wrappers(class)
    } else {
        path.to_path_buf()
    };
    let entries =
        std::fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut found: Vec<Found> = Vec::new();
    let mut left_out: Vec<String> = Vec::new();
    for entry in entries.flatten() {
        let Ok(file_name) = entry.file_name().into_string() else {
            continue;
        };
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if file_name.starts_with('.') {
            continue;
        }
        let (name, zip) = if kind.is_dir() {
            (file_name.clone(), false)
        } else if let Some(stem) = zip_stem(&file_name).filter(|_| kind.is_file()) {
            (stem.to_string(), true)
        } else {
            left_out.push(file_name);
            continue;
        };
        found.push(Found {
            path: entry.path(),
            file_name,
            name,
            zip,
        });
    }
    if !left_out.is_empty() {
        left_out.sort();
        let shown: Vec<String> = left_out
            .iter()
            .map(|name| StudentText::from(name.as_str()).on_a_line())
            .collect();
        eprintln!(
            "left out, being neither a folder nor a zip: {}",
            shown.join(", ")
        );
    }
    if found.is_empty() {
        return Err(format!(
            "{} holds no submission: put each student's crate in a folder or a zip of its own",
            dir.display()
        ));
    }
    let (kept, lookalikes) = apart_from_lookalikes(found);
    for names in &lookalikes {
        eprintln!(
            "refused, not graded: {} would be graded under one name, case and accents aside, so their results would be one file; rename all but one and run the batch again with --resume",
            names
                .iter()
                .map(|name| StudentText::from(name.as_str()).on_a_line())
                .collect::<Vec<_>>()
                .join(" and ")
        );
    }
    if kept.is_empty() {
        return Err(format!(
            "{} holds no submission whose name is its own",
            dir.display()
        ));
    }
    let mut submissions = Vec::with_capacity(kept.len());
    for found in kept {
        let folder = folder_of(&found, &unpacked)?;
        submissions.push(Submission {
            path: crate_in(&folder),
            name: found.name.into(),
        });
    }
    submissions.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(submissions)
}

/// The folder of a submission: its own, or its zip unpacked under `unpacked`; an empty one
/// where the zip is refused, so that the student stays in the gradebook, with nothing to
/// build.
fn folder_of(found: &Found, unpacked: &Path) -> Result<PathBuf, String> {
    if !found.zip {
        return Ok(found.path.clone());
    }
    let into = unpacked.join(&found.name);
    remove(&into)?;
    if let Err(error) = unpack(&found.path, &into, STUDENT) {
        eprintln!(
            "warning: {}; graded as a submission that is not a crate",
            StudentText::from(error.to_string()).on_a_line()
        );
        remove(&into)?;
        std::fs::create_dir_all(&into)
            .map_err(|e| format!("cannot make {}: {e}", into.display()))?;
    }
    Ok(into)
}

/// A folder or a zip of the submissions: where it is, its name there, the name its student
/// is graded under (a zip's without `.zip`), and whether it is a zip.
struct Found {
    path: PathBuf,
    file_name: String,
    name: String,
    zip: bool,
}

/// The submissions whose graded name is no other's, even [`folded`], and the file names of
/// each set of the others, in name order.
fn apart_from_lookalikes(mut found: Vec<Found>) -> (Vec<Found>, Vec<Vec<String>>) {
    found.sort_by(|a, b| a.file_name.cmp(&b.file_name));
    let mut by_folded: BTreeMap<String, Vec<Found>> = BTreeMap::new();
    for submission in found {
        by_folded
            .entry(folded(&submission.name))
            .or_default()
            .push(submission);
    }
    let mut kept = Vec::new();
    let mut lookalikes = Vec::new();
    for alike in by_folded.into_values() {
        if alike.len() == 1 {
            kept.extend(alike);
        } else {
            lookalikes.push(alike.into_iter().map(|found| found.file_name).collect());
        }
    }
    (kept, lookalikes)
}

/// `name` as a file system that ignores case and Unicode's forms of a letter may take it
/// (macOS's ignores both by default, Windows's case), so that two names alike here are
/// refused before one's results overwrite the other's: case folded (`X` is `x`, `ß` is
/// `ss`); a letter with accents as its base letter and [`ACCENT`], whether written as one
/// character (`é`, U+00E9) or as the letter and combining marks (`e` then U+0301); a Hangul
/// syllable as its letters. Without Unicode's decomposition tables (no crate of the build
/// has them; `unicode-normalization` would), which accent a letter bears is not kept, so
/// `é` and `è` are alike too: two names apart only by which accent stands on a letter are
/// refused together, which costs a rename, never a grade.
fn folded(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars().flat_map(char::to_uppercase) {
        for c in c.to_lowercase() {
            if is_combining_mark(c) {
                if !out.ends_with(ACCENT) {
                    out.push(ACCENT);
                }
            } else if let Some(base) = UNACCENTED.get(&c) {
                out.push(*base);
                out.push(ACCENT);
            } else if let Some(letters) = hangul_letters(c) {
                out.extend(letters);
            } else {
                out.push(c);
            }
        }
    }
    out
}

/// What stands for an accent in a [`folded`] name.
const ACCENT: char = '\u{301}';

/// The combining marks a decomposed name holds after a letter: diacritics, their
/// supplements, those for symbols, half marks, and kana's voicing marks.
fn is_combining_mark(c: char) -> bool {
    matches!(
        c,
        '\u{300}'..='\u{36f}'
            | '\u{483}'..='\u{489}'
            | '\u{1ab0}'..='\u{1aff}'
            | '\u{1dc0}'..='\u{1dff}'
            | '\u{20d0}'..='\u{20ff}'
            | '\u{fe20}'..='\u{fe2f}'
            | '\u{3099}'..='\u{309a}'
    )
}

/// Each lower-case letter (or caseless kana) that Unicode writes as a base letter and
/// combining marks, then that base letter, pair by pair: the Latin, Greek and Cyrillic
/// scripts and kana (from Python's `unicodedata.normalize("NFD", c)[0]`, Unicode 14).
const ACCENTED_AND_BASE: &str = concat!(
    // Latin
    "àaáaâaãaäaåaçcèeéeêeëeìiíiîiïiñnòoóoôoõoöoùuúuûuüuýyÿyāaăaąa",
    "ćcĉcċcčcďdēeĕeėeęeěeĝgğgġgģgĥhĩiīiĭiįiĵjķkĺlļlľlńnņnňnōoŏoőo",
    "ŕrŗrřrśsŝsşsšsţtťtũuūuŭuůuűuųuŵwŷyźzżzžzơoưuǎaǐiǒoǔuǖuǘuǚuǜu",
    "ǟaǡaǣæǧgǩkǫoǭoǯʒǰjǵgǹnǻaǽæǿøȁaȃaȅeȇeȉiȋiȍoȏoȑrȓrȕuȗușsțtȟhȧa",
    "ȩeȫoȭoȯoȱoȳyḁaḃbḅbḇbḉcḋdḍdḏdḑdḓdḕeḗeḙeḛeḝeḟfḡgḣhḥhḧhḩhḫhḭiḯi",
    "ḱkḳkḵkḷlḹlḻlḽlḿmṁmṃmṅnṇnṉnṋnṍoṏoṑoṓoṕpṗpṙrṛrṝrṟrṡsṣsṥsṧsṩsṫt",
    "ṭtṯtṱtṳuṵuṷuṹuṻuṽvṿvẁwẃwẅwẇwẉwẋxẍxẏyẑzẓzẕzẖhẗtẘwẙyẛſạaảaấaầa",
    "ẩaẫaậaắaằaẳaẵaặaẹeẻeẽeếeềeểeễeệeỉiịiọoỏoốoồoổoỗoộoớoờoởoỡoợo",
    "ụuủuứuừuửuữuựuỳyỵyỷyỹy",
    // Greek
    "΅¨ΐιάαέεήηίιΰυϊιϋυόούυώωϓϒϔϒ",
    // Cyrillic
    "йиѐеёеѓгїіќкѝиўуѷѵӂжӑаӓаӗеӛәӝжӟзӣиӥиӧоӫөӭэӯуӱуӳуӵчӹы",
    // kana
    "がかぎきぐくげけごこざさじしずすぜせぞそだたぢちづつでてどとばはぱはびひぴひぶふぷふべへぺへぼほぽほゔうゞゝガカギキグク",
    "ゲケゴコザサジシズスゼセゾソダタヂチヅツデテドトバハパハビヒピヒブフプフベヘペヘボホポホヴウヷワヸヰヹヱヺヲヾヽ",
);

/// [`ACCENTED_AND_BASE`] as a map.
static UNACCENTED: LazyLock<HashMap<char, char>> = LazyLock::new(|| {
    let chars: Vec<char> = ACCENTED_AND_BASE.chars().collect();
    chars.chunks(2).map(|pair| (pair[0], pair[1])).collect()
});

/// The letters (jamo) of a Hangul syllable, as Unicode decomposes it by arithmetic.
fn hangul_letters(syllable: char) -> Option<impl Iterator<Item = char>> {
    const FIRST: u32 = 0xac00;
    const VOWELS_TIMES_FINALS: u32 = 21 * 28;
    let index = u32::from(syllable).checked_sub(FIRST)?;
    if index >= 19 * VOWELS_TIMES_FINALS {
        return None;
    }
    let initial = 0x1100 + index / VOWELS_TIMES_FINALS;
    let vowel = 0x1161 + index % VOWELS_TIMES_FINALS / 28;
    let last = index % 28;
    let final_consonant = (last > 0).then_some(0x11a7 + last);
    Some(
        [Some(initial), Some(vowel), final_consonant]
            .into_iter()
            .flatten()
            .filter_map(char::from_u32),
    )
}

/// `name` without its `.zip`, if it is a zip's name.
fn zip_stem(name: &str) -> Option<&str> {
    let stem = name.get(..name.len().checked_sub(4)?)?;
    name[stem.len()..]
        .eq_ignore_ascii_case(".zip")
        .then_some(stem)
        .filter(|stem| !stem.is_empty())
}

fn remove(dir: &Path) -> Result<(), String> {
    match std::fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(format!("cannot remove {}: {e}", dir.display()))
        }
        _ => Ok(()),
    }
}

/// An export's folder of submissions, below the folders that only wrap it (Gradescope's
/// `assignment_N_export/`): a lone subfolder beside no zip and no crate.
fn inside_wrappers(mut dir: PathBuf) -> PathBuf {
    loop {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return dir;
        };
        let entries: Vec<_> = entries
            .flatten()
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .collect();
        let folders: Vec<PathBuf> = entries
            .iter()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.path())
            .collect();
        let has_zip = entries
            .iter()
            .any(|e| zip_stem(&e.file_name().to_string_lossy()).is_some());
        match folders.as_slice() {
            [only]
                if !has_zip
                    && !dir.join("Cargo.toml").exists()
                    && !only.join("Cargo.toml").exists() =>
            {
                dir = only.clone();
            }
            _ => return dir,
        }
    }
}

/// The crate in a student's folder: the shallowest folder holding a `Cargo.toml` (a zip
/// often wraps the crate in a folder of its name), or the folder itself if none does.
/// Links are not followed.
fn crate_in(folder: &Path) -> PathBuf {
    let mut level = vec![folder.to_path_buf()];
    // A crate deeper than this is not how anyone hands one in.
    for _ in 0..4 {
        if let Some(found) = level.iter().find(|dir| {
            std::fs::symlink_metadata(dir.join("Cargo.toml")).is_ok_and(|m| m.is_file())
        }) {
            return found.clone();
        }
        let mut next: Vec<PathBuf> = level
            .iter()
            .filter_map(|dir| std::fs::read_dir(dir).ok())
            .flat_map(|entries| entries.flatten())
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()) && e.file_name() != "target")
            .map(|e| e.path())
            .collect();
        next.sort();
        level = next;
    }
    folder.to_path_buf()
}

/// Unpacks the zip `archive` into `into`, which must not exist yet, as a student's upload
/// to Gradescope is unpacked: no link, no path outside, no entry twice, within `limits`.
fn unpack(archive: &Path, into: &Path, limits: Limits) -> Result<(), UnpackError> {
    if let Some(parent) = into.parent() {
        std::fs::create_dir_all(parent).map_err(|e| UnpackError::Write(parent.to_path_buf(), e))?;
    }
    crate::zip::unpack(archive, into, limits).map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// Writes a zip of `files` (name, bytes) in a fresh folder named for `test`; returns
    /// the folder, the zip's path and the folder it is to be unpacked into.
    fn zip_of(test: &str, files: &[(&str, &[u8])]) -> (tempfile::TempDir, PathBuf, PathBuf) {
        let dir = crate::temp::folder(&format!("test-intake-{test}")).unwrap();
        let path = dir.path().join("submission.zip");
        let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
        for (name, bytes) in files {
            zip.start_file(*name, zip::write::SimpleFileOptions::default())
                .unwrap();
            zip.write_all(bytes).unwrap();
        }
        zip.finish().unwrap();
        let into = dir.path().join("unpacked");
        (dir, path, into)
    }

    const ROOMY: Limits = Limits {
        entries: 10,
        bytes: 10_000,
    };

    #[test]
    fn a_zip_unpacks_into_its_folder() {
        let (_folder, zip, into) = zip_of(
            "plain",
            &[
                ("crate/Cargo.toml", b"[package]"),
                ("crate/src/lib.rs", b"pub fn f() {}"),
            ],
        );
        unpack(&zip, &into, ROOMY).unwrap();
        assert_eq!(
            std::fs::read_to_string(into.join("crate/src/lib.rs")).unwrap(),
            "pub fn f() {}"
        );
        assert_eq!(crate_in(&into), into.join("crate"));
    }

    #[test]
    fn zip_names_lose_their_extension_whatever_its_case() {
        assert_eq!(zip_stem("alice.zip"), Some("alice"));
        assert_eq!(
            zip_stem("smithjohn_123_456_crate.ZIP"),
            Some("smithjohn_123_456_crate")
        );
        assert_eq!(zip_stem(".zip"), None);
        assert_eq!(zip_stem("notes.txt"), None);
        assert_eq!(zip_stem("é.zip"), Some("é"));
    }

    #[test]
    fn names_alike_but_for_case_or_unicode_form_fold_alike() {
        let alike = [
            ("x", "X"),
            ("straße", "STRASSE"),
            ("café", "cafe\u{301}"),
            ("Ærøskøbing", "æRØskøbing"),
            ("nguyễn", "nguye\u{302}\u{303}n"),
            ("йога", "и\u{306}ога"),
            ("がくせい", "か\u{3099}くせい"),
            ("한", "\u{1112}\u{1161}\u{11ab}"),
            ("ΟΔΥΣΣΕΥΣ", "οδυσσευς"),
        ];
        for (one, other) in alike {
            assert_eq!(folded(one), folded(other), "{one} and {other}");
        }
        for (one, other) in [
            ("rene", "rené"),
            ("ab", "a_b"),
            ("한", "핫"),
            ("иван", "олег"),
        ] {
            assert_ne!(folded(one), folded(other), "{one} and {other}");
        }
    }

    #[test]
    fn lookalike_names_are_refused_together_and_the_others_kept() {
        let folder = crate::temp::folder("test-lookalikes").unwrap();
        let dir = folder.path();
        let class = dir.join("class");
        for folder in ["alice", "bob", "café"] {
            std::fs::create_dir_all(class.join(folder)).unwrap();
        }
        for zip in [
            "x.zip",
            "x.ZIP",
            "alice.zip",
            "cafe\u{301}.zip",
            "carol.zip",
        ] {
            std::fs::write(class.join(zip), b"").unwrap();
        }
        let out = dir.join("out");
        let kept = submissions(&class, &out).unwrap();
        let names: Vec<&str> = kept.iter().map(|s| s.name.raw_for_comparison()).collect();
        assert_eq!(names, ["bob", "carol"]);
        assert!(
            !out.join(UNPACKED).join("x").exists(),
            "a refused zip is not unpacked"
        );
        let (_, refused) = apart_from_lookalikes(
            ["x.zip", "x.ZIP", "bob"]
                .map(|file_name| Found {
                    path: class.join(file_name),
                    file_name: file_name.to_string(),
                    name: zip_stem(file_name).unwrap_or(file_name).to_string(),
                    zip: file_name != "bob",
                })
                .into(),
        );
        assert_eq!(refused, [["x.ZIP", "x.zip"]]);
    }
}
