use std::cell::RefCell;
use std::io::{self, BufRead, Write};
use std::rc::Rc;
use std::sync::mpsc::{self, Receiver, Sender};

use grader_api::crazy_eights::{
    Cheat, DEFAULT_TARGET, Engine as _, Harness, PLAYERS, PlayerStrategy, PlayerTurn,
    TournamentResult, is_legal, play_chosen, points,
};
use grader_api::{Card, Deck, Suit, format_cards};

use super::Engine;

const RULES: &str = "Rules: play a card of the top card's suit or rank, or an 8 and name \
     the suit to follow; or draw a card. Emptying your hand wins the game and the points \
     left in the other hands (8 = 50, K Q J 10 = 10, A = 1, others face value); when the \
     draw pile runs out, each player scores the points in the other players' hands.";
const CONTROLS: &str = "Controls: type the number of a card to play it, or d to draw; \
     after an 8, the suit to follow: c, d, h or s. At the end of input the game plays on \
     for you.";
const PLAY_PROMPT: &str = "Play which card (number), or d to draw?";
const SUIT_PROMPT: &str = "Declare which suit (c/d/h/s or clubs/diamonds/hearts/spades)?";

/// Seed 003 at the terminal, for `grader play`.
pub const GAME: crate::Game = crate::Game {
    name: "crazy_eights",
    about: "Seed 003: Crazy Eights, a tournament to 200 points against three harness players",
    options: &[(
        "watch",
        "watch four harness players play the tournament instead of playing",
    )],
    play: |input, out, seed, options| {
        play(input, out, seed, options.contains(&"watch")).map(|_| ())
    },
};

/// Plays a tournament to [`DEFAULT_TARGET`] on a deck shuffled from `seed`: the person
/// at `input` as player 0 against three harness players, or (`watch`) four harness
/// players, every turn printed. Returns the engine's result.
pub fn play(
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    seed: u64,
    watch: bool,
) -> io::Result<TournamentResult> {
    let (requests, requested) = mpsc::channel();
    let (answer, answers) = mpsc::channel();
    let console = Console {
        requests,
        answers,
        ended: false,
    };
    let (result, served) = std::thread::scope(|scope| {
        let engine = scope.spawn(move || tournament(seed, watch, console));
        // Returns when the tournament is over, or at once on an output error: then the
        // engine thread finds the terminal gone and plays on without it.
        let served = serve(input, out, requested, answer);
        (engine.join(), served)
    });
    let result = result.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    served.map(|()| result)
}

/// What the tournament thread asks of the terminal.
enum Request {
    /// Print this line.
    Say(String),
    /// Print this question and answer with the next line of input (`None` at its end).
    Ask(String),
}

/// The calling thread's side: prints and reads until the tournament thread is done.
fn serve(
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    requests: Receiver<Request>,
    answers: Sender<Option<String>>,
) -> io::Result<()> {
    for request in requests {
        match request {
            Request::Say(line) => writeln!(out, "{line}")?,
            Request::Ask(question) => {
                write!(out, "{question} ")?;
                out.flush()?;
                let mut line = Vec::new();
                let read = input.read_until(b'\n', &mut line)?;
                let answer = (read > 0).then(|| String::from_utf8_lossy(&line).trim().to_string());
                if answers.send(answer).is_err() {
                    break;
                }
            }
        }
    }
    out.flush()
}

/// The tournament thread's side of the terminal.
struct Console {
    requests: Sender<Request>,
    answers: Receiver<Option<String>>,
    /// Input has ended (or the terminal is gone): no more questions.
    ended: bool,
}

impl Console {
    fn say(&self, line: impl Into<String>) {
        // A terminal that is gone has its error reported by `serve`.
        let _ = self.requests.send(Request::Say(line.into()));
    }

    /// The next answer, trimmed; `None` from the end of input on, said once.
    fn ask(&mut self, question: &str) -> Option<String> {
        if self.ended {
            return None;
        }
        let answer = self
            .requests
            .send(Request::Ask(question.to_string()))
            .ok()
            .and_then(|()| self.answers.recv().ok().flatten());
        if answer.is_none() {
            self.ended = true;
            self.say("\n(end of input: playing on automatically)");
        }
        answer
    }
}

fn tournament(seed: u64, watch: bool, console: Console) -> TournamentResult {
    let harness: Vec<Harness> = if watch {
        vec![
            Harness::FirstLegal,
            Harness::EightsLast,
            Harness::RandomLegal(seed),
            Harness::RandomLegal(seed.wrapping_add(1)),
        ]
    } else {
        vec![
            Harness::FirstLegal,
            Harness::EightsLast,
            Harness::RandomLegal(seed),
        ]
    };
    let mut names: Vec<String> = harness.iter().map(|h| h.name()).collect();
    if !watch {
        names.insert(0, "you".into());
    }
    let table = Rc::new(RefCell::new(Table {
        console,
        human: !watch,
        names,
        game: 0,
        in_game: false,
        hands: Vec::new(),
        log: Vec::new(),
        plays: 0,
        totals: vec![0; PLAYERS],
    }));
    table.borrow().introduce(seed);

    let mut strategies: Vec<Box<dyn PlayerStrategy>> = harness.iter().map(|h| h.player()).collect();
    if !watch {
        strategies.insert(0, Box::new(Human::new(table.clone())));
    }
    let mut players: Vec<Box<dyn PlayerStrategy>> = strategies
        .into_iter()
        .enumerate()
        .map(|(seat, player)| -> Box<dyn PlayerStrategy> {
            Box::new(Seat {
                seat,
                player,
                table: table.clone(),
                eight: None,
            })
        })
        .collect();
    let mut deck = Deck::shuffled(seed);
    let result = Engine.play_tournament(&mut players, &mut deck, DEFAULT_TARGET);
    let mut table = table.borrow_mut();
    table.finish_game(result.cheater);
    table.conclude(&result);
    result
}

/// What happened at the table, kept from what the seats did, for the summaries.
struct Table {
    console: Console,
    /// Player 0 is the person at the terminal (else: watching four harness players).
    human: bool,
    /// Each seat's player: "you" or a harness player's name.
    names: Vec<String>,
    /// The game under way or last played, from 1.
    game: u32,
    in_game: bool,
    hands: Vec<Vec<Card>>,
    log: Vec<PlayerTurn>,
    /// Cards played in this game (the discard pile less its starter).
    plays: usize,
    /// Running totals of the games summed up so far.
    totals: Vec<u32>,
}

impl Table {
    fn introduce(&self, seed: u64) {
        let say = |line: String| self.console.say(line);
        let seats: Vec<String> = (0..self.names.len())
            .map(|seat| format!("player {seat}: {}", self.names[seat]))
            .collect();
        if self.human {
            say(format!(
                "Welcome to Crazy Eights! (deck seed {seed}; the first to \
                 {DEFAULT_TARGET} points wins the tournament)"
            ));
            say(format!(
                "You are player 0. Your opponents: {}.",
                seats[1..].join(", ")
            ));
            say(RULES.into());
            say(CONTROLS.into());
        } else {
            say(format!(
                "Watching Crazy Eights (deck seed {seed}; the first to {DEFAULT_TARGET} \
                 points wins the tournament)"
            ));
            say(format!("Players: {}.", seats.join(", ")));
        }
    }

    /// "you" or "player N", as the summaries name a seat.
    fn who(&self, seat: usize) -> String {
        if self.human && seat == 0 {
            "you".into()
        } else {
            format!("player {seat}")
        }
    }

    /// "you: 12, player 1: 0, ..."
    fn by_seat(&self, values: &[u32]) -> String {
        let shown: Vec<String> = values
            .iter()
            .enumerate()
            .map(|(seat, value)| format!("{}: {value}", self.who(seat)))
            .collect();
        shown.join(", ")
    }

    fn dealt(&mut self, seat: usize, cards: &[Card]) {
        if !self.in_game {
            self.game += 1;
            self.in_game = true;
            self.hands = vec![Vec::new(); PLAYERS];
            self.log.clear();
            self.plays = 0;
            self.console.say(format!("\n=== Game {} ===", self.game));
        }
        self.hands[seat] = cards.to_vec();
        if !self.human {
            let dealt = format!("player {seat} is dealt {}", format_cards(cards));
            self.console.say(dealt);
        }
    }

    fn turn_begins(&self, top: Card) {
        if !self.human && self.log.is_empty() {
            self.console.say(format!("starter: {top}"));
        }
    }

    fn drew(&mut self, seat: usize, card: Card) {
        self.hands[seat].push(card);
        self.record(PlayerTurn {
            player_id: seat as u32,
            drew_a_card: true,
            played_card: None,
            declared_suit: None,
        });
    }

    fn played(&mut self, seat: usize, card: Card, declared_suit: Option<Suit>) {
        self.hands[seat].retain(|&held| held != card);
        self.plays += 1;
        self.record(PlayerTurn {
            player_id: seat as u32,
            drew_a_card: false,
            played_card: Some(card),
            declared_suit,
        });
    }

    fn record(&mut self, turn: PlayerTurn) {
        if !self.human {
            let held = self.hands[turn.player_id as usize].len();
            let cards = if held == 1 { "card" } else { "cards" };
            self.console.say(format!("  {turn} ({held} {cards} left)"));
        }
        self.log.push(turn);
    }

    /// Cards left to draw: the deck less the hands, the starter and the plays.
    fn draw_pile(&self) -> usize {
        let held: usize = self.hands.iter().map(Vec::len).sum();
        Card::COUNT.saturating_sub(held + 1 + self.plays)
    }

    /// Sums up the game under way, if any: how it ended, the scores, the totals.
    fn finish_game(&mut self, cheat: Option<Cheat>) {
        if !self.in_game {
            return;
        }
        self.in_game = false;
        let say = |line: String| self.console.say(line);
        if self.human && !self.console.ended {
            // The turns after the human's last one: the game ended before its next.
            let seen = self
                .log
                .iter()
                .rposition(|turn| turn.player_id == 0)
                .map_or(0, |last| last + 1);
            if seen < self.log.len() {
                say("\nSince your last turn:".into());
                for turn in &self.log[seen..] {
                    say(format!("  {turn}"));
                }
            }
        }
        let game = self.game;
        if let Some(cheat) = cheat {
            say(format!("\nGame {game} ends: {cheat}. Every score is 0."));
            return;
        }
        let winner = self.hands.iter().position(Vec::is_empty);
        let scores = super::finish(&self.hands, winner, Vec::new(), None).scores;
        say(match winner {
            Some(0) if self.human => format!(
                "\nYou have no cards left: you win game {game} and score {} points!",
                scores[0]
            ),
            Some(seat) => format!(
                "\nPlayer {seat} has no cards left and wins game {game}: {} points.",
                scores[seat]
            ),
            None => format!(
                "\nThe draw pile is empty: nobody wins game {game}; each player scores \
                 the points in the other hands."
            ),
        });
        let left: Vec<String> = (0..self.hands.len())
            .filter(|&seat| !self.hands[seat].is_empty())
            .map(|seat| {
                let hand = &self.hands[seat];
                let worth: u32 = hand.iter().map(|&card| points(card)).sum();
                format!("{}: {} ({worth})", self.who(seat), format_cards(hand))
            })
            .collect();
        say(format!("Left in hand: {}", left.join(", ")));
        for (total, score) in self.totals.iter_mut().zip(&scores) {
            *total += score;
        }
        self.console
            .say(format!("Game {game} scores: {}", self.by_seat(&scores)));
        self.console
            .say(format!("Running totals: {}", self.by_seat(&self.totals)));
    }

    fn conclude(&self, result: &TournamentResult) {
        let say = |line: String| self.console.say(line);
        let games = match result.games {
            1 => "1 game".to_string(),
            n => format!("{n} games"),
        };
        say(format!("\nFinal totals: {}", self.by_seat(&result.totals)));
        if let Some(cheat) = result.cheater {
            say(format!("The tournament stops: {cheat}."));
        }
        say(match result.winner {
            Some(0) if self.human => format!(
                "You win the tournament with {} points after {games}!",
                result.totals[0]
            ),
            Some(seat) => {
                let seat = seat as usize;
                format!(
                    "Player {seat} ({}) wins the tournament with {} points after {games}.",
                    self.names[seat], result.totals[seat]
                )
            }
            None if result.cheater.is_some() => "Nobody wins the tournament.".into(),
            None => {
                format!("Nobody wins the tournament: no total reached {DEFAULT_TARGET} in {games}.")
            }
        });
    }
}

/// A seat at the table: its player, with what it does recorded on the table.
struct Seat {
    seat: usize,
    player: Box<dyn PlayerStrategy>,
    table: Rc<RefCell<Table>>,
    /// An 8 played, recorded once its suit is declared.
    eight: Option<Card>,
}

impl PlayerStrategy for Seat {
    fn init(&mut self, player_id: u32, opponent_ids: &[u32]) {
        self.seat = player_id as usize;
        self.player.init(player_id, opponent_ids);
    }

    fn receive_initial_cards(&mut self, cards: &[Card]) {
        self.table.borrow_mut().dealt(self.seat, cards);
        self.player.receive_initial_cards(cards);
    }

    fn should_draw_card(&mut self, top: Card, declared_suit: Option<Suit>) -> bool {
        self.table.borrow().turn_begins(top);
        self.player.should_draw_card(top, declared_suit)
    }

    fn receive_card(&mut self, card: Card) {
        self.player.receive_card(card);
        self.table.borrow_mut().drew(self.seat, card);
    }

    fn play_card(&mut self) -> Card {
        let card = self.player.play_card();
        if card.value() == 8 {
            self.eight = Some(card);
        } else {
            self.table.borrow_mut().played(self.seat, card, None);
        }
        card
    }

    fn declare_suit(&mut self) -> Suit {
        let suit = self.player.declare_suit();
        if let Some(eight) = self.eight.take() {
            self.table.borrow_mut().played(self.seat, eight, Some(suit));
        }
        suit
    }

    fn process_opponent_actions(&mut self, actions: &[PlayerTurn]) {
        self.player.process_opponent_actions(actions);
    }

    fn reset(&mut self) {
        // The engine resets every player before each game after the first.
        self.table.borrow_mut().finish_game(None);
        self.eight = None;
        self.player.reset();
    }
}

/// The person at the terminal, as a `PlayerStrategy`. It decides in `should_draw_card`
/// and hands the card over in `play_card`; it offers only legal plays.
struct Human {
    table: Rc<RefCell<Table>>,
    hand: Vec<Card>,
    chosen: Option<Card>,
}

impl Human {
    fn new(table: Rc<RefCell<Table>>) -> Human {
        Human {
            table,
            hand: Vec::new(),
            chosen: None,
        }
    }

    fn say(&self, line: impl Into<String>) {
        self.table.borrow().console.say(line);
    }

    fn ask(&self, question: &str) -> Option<String> {
        self.table.borrow_mut().console.ask(question)
    }

    /// Input has ended: the game plays on for the human, silently.
    fn automatic(&self) -> bool {
        self.table.borrow().console.ended
    }

    /// The card to play, or `None` to draw.
    fn choose(&self, top: Card, declared: Option<Suit>) -> Option<Card> {
        if !self.automatic() {
            self.show(top, declared);
        }
        while let Some(answer) = self.ask(PLAY_PROMPT) {
            match choice(&answer, &self.hand, top, declared) {
                Ok(choice) => return choice,
                Err(reason) => self.say(reason),
            }
        }
        // At the end of input: the first legal card, else a draw.
        self.hand
            .iter()
            .copied()
            .find(|&card| is_legal(card, top, declared))
    }

    fn show(&self, top: Card, declared: Option<Suit>) {
        match declared {
            Some(suit) => self.say(format!("Top card: {top}, {} declared", suit.name())),
            None => self.say(format!("Top card: {top}")),
        }
        let counts = {
            let table = self.table.borrow();
            let held: Vec<String> = (1..table.hands.len())
                .map(|seat| format!("player {seat}: {}", table.hands[seat].len()))
                .collect();
            format!(
                "Cards held: {}; draw pile: {}",
                held.join(", "),
                table.draw_pile()
            )
        };
        self.say(counts);
        let cards: Vec<String> = (1..)
            .zip(&self.hand)
            .map(|(number, &card)| {
                let mark = if is_legal(card, top, declared) {
                    "*"
                } else {
                    ""
                };
                format!("{number}: {card}{mark}")
            })
            .collect();
        self.say(format!(
            "Your hand (* can be played):  {}",
            cards.join("  ")
        ));
        if !self.hand.iter().any(|&card| is_legal(card, top, declared)) {
            self.say("None of your cards can be played: type d to draw.");
        }
    }

    fn choose_suit(&self) -> Suit {
        while let Some(answer) = self.ask(SUIT_PROMPT) {
            match suit(&answer) {
                Some(suit) => return suit,
                None => self.say(format!(
                    "`{answer}` is not a suit: type c, d, h or s (or clubs, diamonds, \
                     hearts, spades)."
                )),
            }
        }
        // At the end of input: the suit held most, the lowest on a tie.
        Suit::ALL
            .into_iter()
            .max_by_key(|&suit| {
                let held = self.hand.iter().filter(|c| c.suit() == suit).count();
                (held, std::cmp::Reverse(suit))
            })
            .unwrap_or(Suit::Clubs)
    }
}

impl PlayerStrategy for Human {
    fn init(&mut self, _player_id: u32, _opponent_ids: &[u32]) {}

    fn receive_initial_cards(&mut self, cards: &[Card]) {
        self.hand = cards.to_vec();
    }

    fn should_draw_card(&mut self, top: Card, declared_suit: Option<Suit>) -> bool {
        self.chosen = self.choose(top, declared_suit);
        self.chosen.is_none()
    }

    fn receive_card(&mut self, card: Card) {
        self.hand.push(card);
        if !self.automatic() {
            self.say(format!("You draw {card}."));
        }
    }

    fn play_card(&mut self) -> Card {
        let card = play_chosen(&mut self.chosen, &mut self.hand);
        if !self.automatic() {
            self.say(format!("You play {card}."));
        }
        card
    }

    fn declare_suit(&mut self) -> Suit {
        let suit = self.choose_suit();
        if !self.automatic() {
            self.say(format!("You declare {}.", suit.name()));
        }
        suit
    }

    fn process_opponent_actions(&mut self, actions: &[PlayerTurn]) {
        if self.automatic() {
            return;
        }
        self.say("");
        if !actions.is_empty() {
            self.say("Since your last turn:");
            for turn in actions {
                self.say(format!("  {turn}"));
            }
        }
    }

    fn reset(&mut self) {
        self.hand.clear();
        self.chosen = None;
    }
}

/// What an answer to the play prompt means: `Ok(Some(card))` to play a legal card,
/// `Ok(None)` to draw, or why it won't do. A card may also be named (`9h`).
fn choice(
    answer: &str,
    hand: &[Card],
    top: Card,
    declared: Option<Suit>,
) -> Result<Option<Card>, String> {
    let count = hand.len();
    if matches!(answer.to_lowercase().as_str(), "d" | "draw") {
        return Ok(None);
    }
    let card = match answer.parse::<usize>() {
        Ok(number) if (1..=count).contains(&number) => hand[number - 1],
        Ok(number) => {
            return Err(format!(
                "There is no card {number}: your cards are numbered 1 to {count}."
            ));
        }
        Err(_) => match answer.parse::<Card>() {
            Ok(card) if hand.contains(&card) => card,
            Ok(card) => return Err(format!("You don't hold {card}.")),
            Err(_) => {
                return Err(format!(
                    "`{answer}` is not a card number: type a number from 1 to {count}, \
                     or d to draw."
                ));
            }
        },
    };
    if is_legal(card, top, declared) {
        return Ok(Some(card));
    }
    Err(match declared {
        Some(suit) => format!(
            "{card} can't be played: {} were declared, so play a {} or an 8 (or d to draw).",
            suit.name(),
            singular(suit)
        ),
        None => format!(
            "{card} does not match {top}: play a {}, {} {} or an 8 (or d to draw).",
            singular(top.suit()),
            if matches!(top.value(), 8 | 14) {
                "an"
            } else {
                "a"
            },
            top.rank_label()
        ),
    })
}

/// "club", "diamond", ...
fn singular(suit: Suit) -> &'static str {
    suit.name().trim_end_matches('s')
}

/// `c`, `clubs`, `club`, `♣`, ... in any case.
fn suit(answer: &str) -> Option<Suit> {
    let answer = answer.to_lowercase();
    Suit::ALL.into_iter().find(|&suit| {
        answer == suit.name()
            || answer == singular(suit)
            || answer == suit.name()[..1]
            || answer == suit.symbol().to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use grader_api::crazy_eights::Answer;
    use grader_api::crazy_eights::{Setup, init_players};

    fn session(keys: &str, seed: u64, watch: bool) -> (TournamentResult, String) {
        let mut out = Vec::new();
        let result = play(&mut keys.as_bytes(), &mut out, seed, watch).unwrap();
        (result, String::from_utf8(out).unwrap())
    }

    const WATCHED: fn(u64) -> [Harness; 4] = |seed| {
        [
            Harness::FirstLegal,
            Harness::EightsLast,
            Harness::RandomLegal(seed),
            Harness::RandomLegal(seed + 1),
        ]
    };

    /// The first hand shown to the human on `seed`: each card, and whether it is marked
    /// as one that can be played.
    fn first_hand(seed: u64) -> Vec<(Card, bool)> {
        let (_, out) = session("", seed, false);
        let line = out
            .lines()
            .find_map(|line| line.strip_prefix("Your hand (* can be played):  "))
            .expect("a hand is shown");
        line.split("  ")
            .map(|slot| {
                let card = slot.split_once(": ").expect("`n: card`").1;
                let card = card.strip_suffix('*');
                let marked = card.is_some();
                (
                    card.unwrap_or(slot.split_once(": ").unwrap().1)
                        .parse()
                        .unwrap(),
                    marked,
                )
            })
            .collect()
    }

    fn last_line_starting<'a>(out: &'a str, start: &str) -> &'a str {
        out.lines()
            .rev()
            .find_map(|line| line.strip_prefix(start))
            .unwrap_or_else(|| panic!("no `{start}` line in\n{out}"))
    }

    #[test]
    fn watching_shows_the_engines_games_turn_by_turn_and_its_tournament() {
        for seed in 0..6 {
            let (result, out) = session("", seed, true);
            let setup = Setup {
                deck: Vec::new(),
                seed,
                players: WATCHED(seed).to_vec(),
                target: DEFAULT_TARGET,
            };
            let Answer::Tournament(expected) = grader_api::crazy_eights::play(&setup, &Engine)
            else {
                panic!("not a tournament")
            };
            assert_eq!(result, expected, "seed {seed}");

            // The same games, one at a time, as the engine plays them in a tournament.
            let mut players: Vec<Box<dyn PlayerStrategy>> =
                WATCHED(seed).iter().map(|h| h.player()).collect();
            init_players(&mut players);
            let mut deck = Deck::shuffled(seed);
            let games: Vec<&str> = out.split("\n=== Game ").skip(1).collect();
            assert_eq!(games.len() as u32, result.games, "seed {seed}\n{out}");
            for (number, shown) in (1..).zip(&games) {
                if number > 1 {
                    players.iter_mut().for_each(|p| p.reset());
                    deck.renew();
                }
                let game = Engine.play_game(&mut players, &mut deck);
                let turns: Vec<String> = shown
                    .lines()
                    .filter_map(|line| line.strip_prefix("  "))
                    .map(|line| line.rsplit_once(" (").expect("cards left").0.to_string())
                    .collect();
                let logged: Vec<String> = game.log.iter().map(|t| t.to_string()).collect();
                assert_eq!(turns, logged, "seed {seed} game {number}");
                let scores = format!(
                    "Game {number} scores: {}\n",
                    (0..PLAYERS)
                        .map(|seat| format!("player {seat}: {}", game.scores[seat]))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                assert!(shown.contains(&scores), "{scores}in\n{shown}");
                assert_eq!(shown.matches("starter: ").count(), 1, "{shown}");
                assert_eq!(shown.matches(" is dealt ").count(), PLAYERS, "{shown}");
            }
            assert_eq!(
                last_line_starting(&out, "Running totals: "),
                last_line_starting(&out, "Final totals: "),
                "seed {seed}"
            );
            let winner = result.winner.expect("someone reaches 200") as usize;
            assert!(
                out.ends_with(&format!(
                    "Player {winner} ({}) wins the tournament with {} points after {} games.\n",
                    WATCHED(seed)[winner].name(),
                    result.totals[winner],
                    result.games
                )),
                "{out}"
            );
            assert!(!out.contains("end of input"), "{out}");
        }
    }

    #[test]
    fn bad_answers_are_explained_and_asked_again() {
        // A seed whose first hand holds an 8 and a card that can't be played.
        let (seed, hand) = (0..100)
            .map(|seed| (seed, first_hand(seed)))
            .find(|(_, hand)| {
                hand.iter().any(|(card, _)| card.value() == 8)
                    && hand.iter().any(|&(_, legal)| !legal)
            })
            .expect("such a seed");
        let number = |wanted: &dyn Fn(&(Card, bool)) -> bool| {
            hand.iter().position(wanted).map(|i| i + 1).unwrap()
        };
        let illegal = number(&|&(_, legal)| !legal);
        let eight = number(&|(card, _)| card.value() == 8);
        let not_held = (0..52)
            .filter_map(Card::from_index)
            .find(|card| hand.iter().all(|(held, _)| held != card))
            .unwrap();
        let keys = format!("x\n\n0\n6\n-1\n{illegal}\n{not_held}\n{eight}\nq\n\nHearts\n");
        let (result, out) = session(&keys, seed, false);
        let (illegal_card, eight_card) = (hand[illegal - 1].0, hand[eight - 1].0);
        for explanation in [
            "`x` is not a card number: type a number from 1 to 5, or d to draw.".to_string(),
            "`` is not a card number".into(),
            "There is no card 0: your cards are numbered 1 to 5.".into(),
            "There is no card 6: your cards are numbered 1 to 5.".into(),
            "`-1` is not a card number".into(),
            format!("{illegal_card} does not match "),
            format!("You don't hold {not_held}."),
            format!("You play {eight_card}."),
            "`q` is not a suit: type c, d, h or s (or clubs, diamonds, hearts, spades).".into(),
            "`` is not a suit".into(),
            "You declare hearts.".into(),
        ] {
            assert!(out.contains(&explanation), "{explanation}\n{out}");
        }
        // Eight answers, then the next turn's question meets the end of input.
        assert_eq!(out.matches(PLAY_PROMPT).count(), 9, "{out}");
        assert_eq!(out.matches(SUIT_PROMPT).count(), 3, "{out}");
        // The others follow hearts; then the human is shown what they did.
        let next = "Since your last turn:\n  player 1 ";
        assert!(out.contains(next), "{next}\n{out}");
        assert_eq!(
            out.matches("(end of input: playing on automatically)")
                .count(),
            1
        );
        assert!(result.winner.is_some(), "{out}");
    }

    #[test]
    fn the_end_of_input_plays_on_and_finishes_the_tournament() {
        for seed in 0..4 {
            for keys in ["", "d\n", "d\nd\nd\n"] {
                let (result, out) = session(keys, seed, false);
                assert_eq!(
                    out.matches("(end of input: playing on automatically)")
                        .count(),
                    1,
                    "{out}"
                );
                assert_eq!(out.matches(PLAY_PROMPT).count(), keys.len() / 2 + 1);
                assert!(result.cheater.is_none());
                let winner = result.winner.expect("someone reaches 200");
                assert!(result.totals[winner as usize] >= DEFAULT_TARGET);
                assert_eq!(
                    last_line_starting(&out, "Running totals: "),
                    last_line_starting(&out, "Final totals: "),
                    "{out}"
                );
                assert!(
                    out.trim_end()
                        .lines()
                        .last()
                        .unwrap()
                        .contains(" the tournament with "),
                    "{out}"
                );
            }
        }
        // Input ending at the suit question: the suit held most is declared.
        let (seed, hand) = (0..100)
            .map(|seed| (seed, first_hand(seed)))
            .find(|(_, hand)| hand.iter().any(|(card, _)| card.value() == 8))
            .unwrap();
        let eight = hand.iter().position(|(c, _)| c.value() == 8).unwrap() + 1;
        let (result, out) = session(&format!("{eight}\n"), seed, false);
        assert!(
            out.contains(&format!("{SUIT_PROMPT} \n(end of input")),
            "{out}"
        );
        assert!(result.winner.is_some());
    }

    #[test]
    fn a_drawing_human_sees_every_turn_of_the_others() {
        let keys = "d\n".repeat(400);
        let (result, out) = session(&keys, 5, false);
        assert!(result.winner.is_some(), "{out}");
        // Each game won while input lasts shows the winning play before the verdict.
        let interactive = out.split("(end of input").next().unwrap();
        let verdicts: Vec<&str> = interactive.split(" has no cards left").collect();
        assert!(verdicts.len() > 1, "{out}");
        for before in &verdicts[..verdicts.len() - 1] {
            let mut lines = before.lines().rev();
            let winner = lines.next().unwrap().strip_prefix("Player ").unwrap();
            lines.next(); // the blank line
            let last_turn = lines.next().unwrap();
            assert!(
                last_turn.starts_with(&format!("  player {winner} plays ")),
                "{last_turn}\n{out}"
            );
        }
        assert!(!out.contains("You play "), "{out}");
        assert!(out.contains("You draw "), "{out}");
    }

    #[test]
    fn the_same_seed_deals_the_same_tournament() {
        let keys = "d\n1\n2\nd\n3\n1\nc\n";
        assert_eq!(session(keys, 11, false), session(keys, 11, false));
        assert_ne!(session(keys, 11, false).1, session(keys, 12, false).1);
        assert_eq!(session("", 11, true), session("", 11, true));
    }

    #[test]
    fn choices_name_what_is_wrong() {
        let cards = |text: &str| -> Vec<Card> {
            text.split_whitespace()
                .map(|c| c.parse().unwrap())
                .collect()
        };
        let hand = cards("2C 9D KH 8S");
        let top: Card = "AH".parse().unwrap();
        assert_eq!(choice("d", &hand, top, None), Ok(None));
        assert_eq!(choice("DRAW", &hand, top, None), Ok(None));
        assert_eq!(choice("3", &hand, top, None), Ok(Some(hand[2])));
        assert_eq!(choice("8s", &hand, top, None), Ok(Some(hand[3])));
        assert_eq!(
            choice("1", &hand, top, None),
            Err("2♣ does not match A♥: play a heart, an A or an 8 (or d to draw).".into())
        );
        let eight: Card = "8C".parse().unwrap();
        assert_eq!(
            choice("3", &hand, eight, Some(Suit::Diamonds)),
            Err(
                "K♥ can't be played: diamonds were declared, so play a diamond or an 8 \
                 (or d to draw)."
                    .into()
            )
        );
        assert_eq!(
            choice("2", &hand, eight, Some(Suit::Diamonds)),
            Ok(Some(hand[1]))
        );
        assert_eq!(
            choice("5", &hand, top, None),
            Err("There is no card 5: your cards are numbered 1 to 4.".into())
        );
        assert_eq!(
            choice("QS", &hand, top, None),
            Err("You don't hold Q♠.".into())
        );
    }

    #[test]
    fn suits_are_named_by_letter_word_or_symbol() {
        for (answer, expected) in [
            ("c", Some(Suit::Clubs)),
            ("D", Some(Suit::Diamonds)),
            ("hearts", Some(Suit::Hearts)),
            ("Spade", Some(Suit::Spades)),
            ("♥", Some(Suit::Hearts)),
            ("x", None),
            ("", None),
            ("cl", None),
        ] {
            assert_eq!(suit(answer), expected, "{answer}");
        }
    }
}
