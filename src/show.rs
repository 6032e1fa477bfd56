//! `grader spec show`: what the reference answers for each listed case of a spec, in the
//! spec's own `expect` syntax where one says it, without failing a test on purpose.

use std::path::PathBuf;
use std::process::ExitCode;

use grader_api::spec::Grading;

use crate::exit;
use crate::grade::reference_answers;
use crate::spec;

#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// The spec files (or folders of them) whose cases to answer.
    #[arg(required = true, value_name = "SPEC")]
    pub specs: Vec<PathBuf>,
    /// Only the cases whose test ids contain this.
    #[arg(long, value_name = "FILTER")]
    pub case: Option<String>,
}

pub fn run(args: ShowArgs) -> ExitCode {
    exit::done_or_usage(show(&args))
}

fn show(args: &ShowArgs) -> Result<(), String> {
    let suite = spec::load(&args.specs, &[], None).map_err(|e| e.to_string())?;
    let reference = reference::submission();
    let mut shown = 0;
    for (_, test) in suite.tests() {
        let wanted = args
            .case
            .as_deref()
            .is_none_or(|part| test.id.contains(part));
        if !wanted || test.grading != Grading::Listed {
            continue;
        }
        shown += 1;
        println!("{}", test.id);
        let request = &*test.request;
        for (_, replies) in reference_answers(&reference, request) {
            for (index, reply) in replies.iter().enumerate() {
                let question = request.question(index);
                match request.expect_text(reply) {
                    Some(expect) => println!("  {question}: expect: {expect}"),
                    None => {
                        let answer = request.show(reply).replace('\n', "\n      ");
                        println!("  {question}:\n      {answer}");
                    }
                }
            }
        }
    }
    match shown {
        0 => Err(match &args.case {
            Some(part) => format!("no listed case's id contains `{part}`"),
            None => "the specs hold no listed case (bulk groups are answered as they run)".into(),
        }),
        _ => Ok(()),
    }
}
