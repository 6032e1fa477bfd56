//! The students' own tests, graded: their `#[cfg(test)]` modules run against the
//! reference (a test that fails there asserts what the rules do not say, and is left out),
//! against each bug of the assignment's library (a bug is caught when a valid test fails
//! on it) and against their own code.
//!
//! The tests are built once, against the assignment's stand-ins ([`harness`]), with
//! nothing of the reference or of a bug in their build or their process: each run of a test
//! is linked to the [`oracle`], a program of the grader's that answers the stand-ins' calls
//! with one implementation. A test cannot tell the implementations apart but by their
//! answers, and its verdict is its exit status ([`run`]).
//!
//! This file declares the parts and names what the rest of the grader uses; what the parts
//! share (`grading`, `file`) lives in files of their own beneath them.

pub mod examples;
mod file;
mod grade;
mod grading;
pub mod harness;
mod oracle;
mod rounds;
mod run;
mod session;
pub mod source;
pub mod suite;
mod verdicts;

pub use file::StudentFile;
pub use grading::{Graded, Grading};
pub use session::StudentTestsRun;
pub use verdicts::Told;
