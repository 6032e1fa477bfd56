//! Every assignment, declared once. [`for_each_assignment!`] is the one list: the api's
//! modules and [`ASSIGNMENTS`], the reference's modules, `submission()` and library of
//! bugs, and the student template's modules and `submission()` are all made from it, and
//! the grader's tests hold the specs, the docs and the fuzz tests to it.

use crate::unit::{Of, Unit};

/// Calls the macro `$then` with every assignment's module name, in the order reports list
/// them. A new assignment is its own files and one line here.
#[macro_export]
macro_rules! for_each_assignment {
    ($($then:ident)::+) => {
        $($then)::+! {
            plaisante_hand,
            tableau,
            blackjack,
            poker,
            draw_poker,
            crazy_eights,
        }
    };
}

/// A submission crate of one module per assignment, each with its `register`: their
/// `pub mod`s and `submission()` registering each. The reference and the student template
/// in the grader's checkout are made so:
/// `grader_api::for_each_assignment!(grader_api::modules_and_submission)`.
#[macro_export]
macro_rules! modules_and_submission {
    ($($assignment:ident),+ $(,)?) => {
        $(pub mod $assignment;)+

        pub fn submission() -> $crate::Submission {
            $crate::Submission::new()$(.with($assignment::register))+
        }
    };
}

macro_rules! units {
    ($($assignment:ident),+ $(,)?) => {
        /// Every assignment, in the order reports list them.
        pub static ASSIGNMENTS: &[&dyn Unit] = &[$(&Of::<crate::$assignment::Contract>::UNIT),+];
    };
}

for_each_assignment!(units);

/// The assignment specs and the runner call `name`.
pub fn assignment(name: &str) -> Option<&'static dyn Unit> {
    ASSIGNMENTS.iter().copied().find(|unit| unit.name() == name)
}
