//! The library of bugs students write, each made of the reference by small edits of its
//! source: what `grader spec audit` grades specs against, and what the grader's tests hold
//! every shipped spec to. Each assignment keeps its list in a `bugs` module beside its
//! reference; no `bugs` file is part of the source a bug's crate is made of.

use std::borrow::Cow;

/// One assignment's bugs, and how a crate of one of them is made.
pub struct Library {
    /// The assignment, by the name specs give it; its module of the reference is the one
    /// every bug edits.
    pub assignment: &'static str,
    /// Other modules of the reference a bug's crate holds, as inline `pub mod`s after the
    /// assignment's own; edits may change them too.
    pub uses: &'static [&'static str],
    /// The bugs, made when asked for: their edits are written with the reference's text.
    pub bugs: fn() -> Vec<Bug>,
}

/// A bug: the reference with `edits` made, and the tests of its assignment that catch it.
/// The library's bugs are written here; a mutant that staff kept is read from a file, so
/// its texts are owned.
pub struct Bug {
    /// Its crate's package name, unique across the library.
    pub name: Cow<'static, str>,
    /// What is wrong with it, in the words of DOMAIN.md's list of student bugs.
    pub description: Cow<'static, str>,
    /// Text of the reference's source and what replaces it; each must occur exactly once.
    pub edits: Vec<(Cow<'static, str>, String)>,
    /// The tests that must catch it: where a bug is caught by two tests of different
    /// kinds (a listed case and a bulk group), both are named.
    pub caught: Vec<Caught>,
}

/// A test of the assignment that catches a bug (its id without the assignment's prefix),
/// and phrases its failure must hold to name the difference.
pub struct Caught {
    pub test: &'static str,
    pub says: &'static [&'static str],
}

impl Bug {
    pub fn new(
        name: &'static str,
        description: &'static str,
        edits: &[(&'static str, &str)],
    ) -> Bug {
        Bug {
            name: Cow::Borrowed(name),
            description: Cow::Borrowed(description),
            edits: edits
                .iter()
                .map(|(from, to)| (Cow::Borrowed(*from), to.to_string()))
                .collect(),
            caught: Vec::new(),
        }
    }

    /// This bug caught by `test` (and any other tests named), whose failure says each of
    /// `says`.
    pub fn caught_by(mut self, test: &'static str, says: &'static [&'static str]) -> Bug {
        self.caught.push(Caught { test, says });
        self
    }
}

/// Every assignment's library, in the order of `grader_api::for_each_assignment!`.
macro_rules! libraries {
    ($($assignment:ident),+ $(,)?) => {
        pub static LIBRARIES: &[Library] = &[$(crate::$assignment::bugs::LIBRARY),+];
    };
}

grader_api::for_each_assignment!(libraries);
