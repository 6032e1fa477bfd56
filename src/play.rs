//! `grader play`: the reference's games in the terminal. The games and their options are
//! the reference's (`reference::GAMES`); this is the command line around them.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::builder::{PossibleValue, PossibleValuesParser};
use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};
use reference::{GAMES, Game};

/// `grader play GAME [--seed N] [OPTION...]`, where the options are the games' own.
#[derive(Debug)]
pub struct PlayArgs {
    pub game: String,
    pub seed: Option<u64>,
    /// The game options given, by name.
    pub options: Vec<&'static str>,
}

impl FromArgMatches for PlayArgs {
    fn from_arg_matches(matches: &ArgMatches) -> Result<PlayArgs, clap::Error> {
        let options = GAMES
            .iter()
            .flat_map(|game| game.options)
            .map(|(flag, _)| *flag)
            .filter(|flag| matches.get_flag(flag))
            .collect();
        Ok(PlayArgs {
            game: matches
                .get_one::<String>("GAME")
                .cloned()
                .unwrap_or_default(),
            seed: matches.get_one::<u64>("seed").copied(),
            options,
        })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = PlayArgs::from_arg_matches(matches)?;
        Ok(())
    }
}

impl Args for PlayArgs {
    fn augment_args(command: Command) -> Command {
        let games = GAMES
            .iter()
            .map(|game| PossibleValue::new(game.name).help(game.about));
        let mut command = command
            .arg(
                Arg::new("GAME")
                    .required(true)
                    .value_parser(PossibleValuesParser::new(games))
                    .help("The game to play"),
            )
            .arg(
                Arg::new("seed")
                    .long("seed")
                    .value_parser(clap::value_parser!(u64))
                    .help(
                        "Shuffle from this seed, to replay a game [default: a new seed each time]",
                    ),
            );
        for game in GAMES {
            for (flag, about) in game.options {
                command = command.arg(
                    Arg::new(*flag)
                        .long(*flag)
                        .action(ArgAction::SetTrue)
                        .help(format!("{}: {about}", game.name)),
                );
            }
        }
        command
    }

    fn augment_args_for_update(command: Command) -> Command {
        PlayArgs::augment_args(command)
    }
}

pub fn run(args: PlayArgs) -> ExitCode {
    let Some(game) = GAMES.iter().find(|game| game.name == args.game) else {
        eprintln!("error: there is no game `{}`", args.game);
        return ExitCode::from(crate::exit::USAGE);
    };
    if let Some(stray) = args
        .options
        .iter()
        .find(|flag| !game.options.iter().any(|(own, _)| own == *flag))
    {
        eprintln!("error: {}", misplaced(stray, game));
        return ExitCode::from(crate::exit::USAGE);
    }
    let seed = args.seed.unwrap_or_else(clock_seed);
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let mut out = io::stdout().lock();
    match (game.play)(&mut input, &mut out, seed, &args.options) {
        Ok(()) => ExitCode::SUCCESS,
        // A closed terminal or pipe is how a player may leave; nothing to report.
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            let _ = out.flush();
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Says whose option `flag` is, and what `game` takes instead.
fn misplaced(flag: &str, game: &Game) -> String {
    let owner = GAMES
        .iter()
        .find(|other| other.options.iter().any(|(own, _)| *own == flag))
        .map_or("another game", |other| other.name);
    let takes = match game.options {
        [] => "no option besides --seed".to_string(),
        options => {
            let flags: Vec<String> = options
                .iter()
                .map(|(flag, _)| format!("--{flag}"))
                .collect();
            format!("--seed and {}", flags.join(", "))
        }
    };
    format!(
        "--{flag} is an option of `grader play {owner}`; `grader play {}` takes {takes}",
        game.name
    )
}

fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| elapsed.as_nanos() as u64)
        .unwrap_or(0)
}
