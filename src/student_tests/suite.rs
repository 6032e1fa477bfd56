//! A `student_tests` group's tests in a suite, as reports and grading find them. The tests
//! themselves are made where specs are loaded (`spec::student_tests`).

use crate::spec::Group;

pub use crate::spec::student_tests::{bugs, library};

/// The places in `group` of its tests of one bug each, in the order of its bugs: a group of
/// student tests' tests but its first and its last; none in another group.
pub fn bug_tests(group: &Group) -> std::ops::Range<usize> {
    match group.student_tests {
        Some(_) => 1..group.tests.len().saturating_sub(1).max(1),
        None => 0..0,
    }
}
