//! `grader play`: the reference implementations as games in the terminal.

use std::io::{self, Write};
use std::process::ExitCode;

use grader_api::blackjack::Rules;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Game {
    /// Seed 001: hit or stand against the dealer, with a running tally.
    Blackjack,
    /// Seed 004: five-card draw against the dealer; discard up to three cards by position.
    Draw,
    /// Seed 003: Crazy Eights, a tournament to 200 points against three harness players.
    #[value(name = "crazy8")]
    Crazy8,
}

impl Game {
    /// The name `grader play` knows the game by.
    fn name(self) -> &'static str {
        match self {
            Game::Blackjack => "blackjack",
            Game::Draw => "draw",
            Game::Crazy8 => "crazy8",
        }
    }
}

#[derive(Debug, clap::Args)]
pub struct PlayArgs {
    /// The game to play.
    #[arg(value_enum)]
    pub game: Game,
    /// Shuffle from this seed, to replay a game [default: a new seed each time].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Blackjack: the dealer hits a soft 17 (H17) instead of standing on it.
    #[arg(long)]
    pub h17: bool,
    /// Crazy Eights: watch four harness players play the tournament instead of playing.
    #[arg(long)]
    pub watch: bool,
}

pub fn run(args: PlayArgs) -> ExitCode {
    if args.h17 && args.game != Game::Blackjack {
        eprintln!(
            "error: --h17 is a blackjack rule; `grader play {}` has no dealer soft 17",
            args.game.name()
        );
        return ExitCode::from(crate::exit::USAGE);
    }
    if args.watch && args.game != Game::Crazy8 {
        eprintln!(
            "error: --watch is a crazy8 option; `grader play {}` has no harness players to watch",
            args.game.name()
        );
        return ExitCode::from(crate::exit::USAGE);
    }
    let seed = args.seed.unwrap_or_else(clock_seed);
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let mut out = io::stdout().lock();
    let played = match args.game {
        Game::Blackjack => reference::blackjack::terminal::play(
            &mut input,
            &mut out,
            seed,
            Rules {
                dealer_hits_soft_17: args.h17,
            },
        )
        .map(|_| ()),
        Game::Draw => reference::draw::terminal::play(&mut input, &mut out, seed).map(|_| ()),
        Game::Crazy8 => {
            reference::crazy8::terminal::play(&mut input, &mut out, seed, args.watch).map(|_| ())
        }
    };
    match played {
        Ok(_) => ExitCode::SUCCESS,
        // A closed terminal or pipe is how a player may leave; nothing to report.
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            let _ = out.flush();
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| elapsed.as_nanos() as u64)
        .unwrap_or(0)
}
