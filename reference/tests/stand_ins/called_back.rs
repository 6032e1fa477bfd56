//! The stand-ins whose implementation calls the test back (a blackjack player, Crazy Eights
//! strategies) play as the reference does in-process: the same results, the same deck
//! after, and the same calls seen by the test's own players, in the same order.

use grader_api::Deck;
use grader_api::stand_in::panic_text;

use super::linked_to_the_reference;

/// The same cards left, and the same generator: the fresh decks after them match too.
fn assert_same_deck(want: &Deck, got: &Deck, case: &str) {
    assert_eq!(want.remaining(), got.remaining(), "{case}");
    let (mut want, mut got) = (want.clone(), got.clone());
    want.renew();
    got.renew();
    assert_eq!(
        want.remaining(),
        got.remaining(),
        "the deck's generator, {case}"
    );
}

/// A deck shuffled from `seed`, or for some seeds only its first cards, so that dealing
/// runs out and the deck's generator deals on.
fn deck(seed: u64) -> Deck {
    let mut shuffled = Deck::shuffled(seed);
    match seed % 3 {
        0 => {
            let cards = (0..3 + seed % 20).map(|_| shuffled.deal()).collect();
            Deck::stacked_seeded(cards, seed)
        }
        _ => shuffled,
    }
}

/// What `body` panicked with.
fn panic_of(body: impl FnOnce()) -> String {
    let payload = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)).unwrap_err();
    panic_text(payload.as_ref())
}

mod blackjack {
    use super::*;
    use grader_api::Card;
    use grader_api::blackjack::{
        Action, BlackjackGame, BlackjackHand, Player, Round, Rules, Tally, stand_in,
    };
    use std::marker::PhantomData;

    /// Hits below `limit` by the value of a hand `H` of its own (a stand-in's is asked of the
    /// implementation while the round waits), and records every decision it is asked for.
    struct Recording<H> {
        limit: u32,
        seen: Vec<(Vec<Card>, u32, Card, Action)>,
        hand: PhantomData<H>,
    }

    impl<H: BlackjackHand> Recording<H> {
        fn new(limit: u32) -> Recording<H> {
            Recording {
                limit,
                seen: Vec::new(),
                hand: PhantomData,
            }
        }
    }

    impl<H: BlackjackHand> Player for Recording<H> {
        fn decide(&mut self, cards: &[Card], total: u32, dealer_shows: Card) -> Action {
            let mut own = H::new();
            cards.iter().for_each(|card| own.add(*card));
            let action = match own.value() < self.limit {
                true => Action::Hit,
                false => Action::Stand,
            };
            self.seen
                .push((cards.to_vec(), total, dealer_shows, action));
            action
        }
    }

    /// Plays `play` on the reference's game and on the stand-in's, each with its own copy of
    /// the deck and its own recording player, and checks they went alike.
    fn both_alike<T: PartialEq + std::fmt::Debug>(
        seed: u64,
        play: impl Fn(&dyn BlackjackGame, &mut Deck, &mut dyn Player) -> T,
    ) -> usize {
        let (mut want_deck, mut got_deck) = (deck(seed), deck(seed));
        let limit = 12 + (seed % 8) as u32;
        let mut want_player = Recording::<reference::blackjack::Hand>::new(limit);
        let mut got_player = Recording::<stand_in::Hand>::new(limit);
        let want = play(
            &reference::blackjack::Game,
            &mut want_deck,
            &mut want_player,
        );
        let got = play(&stand_in::Game, &mut got_deck, &mut got_player);
        let case = format!("seed {seed}");
        assert_eq!(want, got, "{case}");
        assert_eq!(want_player.seen, got_player.seen, "{case}");
        assert_same_deck(&want_deck, &got_deck, &case);
        got_player.seen.len()
    }

    fn rules(seed: u64) -> Rules {
        Rules {
            dealer_hits_soft_17: seed.is_multiple_of(2),
        }
    }

    #[test]
    fn a_hand_answers_as_the_reference_after_every_card() {
        linked_to_the_reference("blackjack", || {
            for seed in 0..300 {
                let mut cards = deck(seed);
                let mut want = reference::blackjack::Hand::default();
                let mut got = stand_in::Hand::default();
                for _ in 0..=seed % 9 {
                    let card = cards.deal();
                    want.add(card);
                    got.add(card);
                    assert_eq!(want.cards(), got.cards());
                    assert_eq!(want.value(), got.value(), "{:?}", want.cards());
                    assert_eq!(want.is_soft(), got.is_soft(), "{:?}", want.cards());
                }
            }
        });
    }

    #[test]
    fn rounds_go_as_the_reference_with_the_same_decisions_asked() {
        linked_to_the_reference("blackjack", || {
            let decisions: usize = (0..500)
                .map(|seed| {
                    both_alike(seed, |game, deck, player| -> Round {
                        game.play_round(deck, player, &rules(seed))
                    })
                })
                .sum();
            assert!(decisions > 500, "the player was asked {decisions} times");
        });
    }

    #[test]
    fn sessions_go_as_the_reference_with_the_same_decisions_asked() {
        linked_to_the_reference("blackjack", || {
            let decisions: usize = (0..60)
                .map(|seed| {
                    both_alike(seed, |game, deck, player| -> Tally {
                        game.play_session(deck, player, &rules(seed), 1 + (seed % 30) as u32)
                    })
                })
                .sum();
            assert!(decisions > 500, "the player was asked {decisions} times");
        });
    }

    struct Panicking;

    impl Player for Panicking {
        fn decide(&mut self, _: &[Card], _: u32, _: Card) -> Action {
            panic!("the player gives up")
        }
    }

    #[test]
    fn a_player_that_panics_panics_the_test_with_its_message_and_the_link_goes_on() {
        linked_to_the_reference("blackjack", || {
            // Seed 1's round asks the player: no natural ends it at once.
            let mut deck = Deck::shuffled(1);
            let said = panic_of(|| {
                stand_in::Game.play_round(&mut deck, &mut Panicking, &Rules::default());
            });
            assert_eq!(said, "the player gives up");
            assert_eq!(
                both_alike(1, |game, deck, player| game.play_round(
                    deck,
                    player,
                    &Rules::default()
                )),
                1
            );
        });
    }

    /// `student_template/src/blackjack.rs`'s example test, on the stand-ins' names.
    #[test]
    fn the_templates_example_test_passes() {
        use stand_in::*;
        linked_to_the_reference("blackjack", || {
            let mut hand = Hand::new();
            for card in ["AH", "5D", "AC"] {
                hand.add(card.parse().unwrap());
            }
            assert_eq!(hand.value(), 17);
            assert!(hand.is_soft());
        });
    }
}

mod crazy_eights {
    use super::*;
    use grader_api::crazy_eights::{
        Call, CheatKind, Engine, Harness, PlayerStrategy, PlayerTurn, Response, init_players,
        perform, stand_in,
    };
    use grader_api::{Card, Suit};
    use std::cell::RefCell;
    use std::rc::Rc;

    /// Every call the players of a table got, with the seat and what it answered, in order.
    type Log = Rc<RefCell<Vec<(usize, Call, Response)>>>;

    /// A player that records each call it gets in its table's log.
    struct Recording {
        inner: Box<dyn PlayerStrategy>,
        seat: usize,
        log: Log,
    }

    impl Recording {
        fn record(&mut self, call: Call) -> Response {
            let response = perform(&mut *self.inner, &call);
            self.log
                .borrow_mut()
                .push((self.seat, call, response.clone()));
            response
        }
    }

    impl PlayerStrategy for Recording {
        fn init(&mut self, player_id: u32, opponent_ids: &[u32]) {
            self.record(Call::Init(player_id, opponent_ids.to_vec()));
        }
        fn receive_initial_cards(&mut self, cards: &[Card]) {
            self.record(Call::ReceiveInitialCards(cards.to_vec()));
        }
        fn should_draw_card(&mut self, top: Card, declared_suit: Option<Suit>) -> bool {
            match self.record(Call::ShouldDrawCard(top, declared_suit)) {
                Response::Draw(draw) => draw,
                other => panic!("{other:?}"),
            }
        }
        fn receive_card(&mut self, card: Card) {
            self.record(Call::ReceiveCard(card));
        }
        fn play_card(&mut self) -> Card {
            match self.record(Call::PlayCard) {
                Response::Card(card) => card,
                other => panic!("{other:?}"),
            }
        }
        fn declare_suit(&mut self) -> Suit {
            match self.record(Call::DeclareSuit) {
                Response::Suit(suit) => suit,
                other => panic!("{other:?}"),
            }
        }
        fn process_opponent_actions(&mut self, actions: &[PlayerTurn]) {
            self.record(Call::ProcessOpponentActions(actions.to_vec()));
        }
        fn reset(&mut self) {
            self.record(Call::Reset);
        }
    }

    /// `players` seated in order, recording into one log.
    fn seated(players: Vec<Box<dyn PlayerStrategy>>) -> (Vec<Box<dyn PlayerStrategy>>, Log) {
        let log = Log::default();
        let seated = players
            .into_iter()
            .enumerate()
            .map(|(seat, inner)| -> Box<dyn PlayerStrategy> {
                Box::new(Recording {
                    inner,
                    seat,
                    log: Rc::clone(&log),
                })
            })
            .collect();
        (seated, log)
    }

    /// Harness players for `seed`: legal ones mostly, a cheater in some games.
    fn harness_players(seed: u64) -> Vec<Box<dyn PlayerStrategy>> {
        let kind = CheatKind::ALL[(seed % 3) as usize];
        let styles = [
            Harness::FirstLegal,
            Harness::RandomLegal(seed),
            Harness::EightsLast,
            Harness::DrawsWhenever,
            Harness::Cheater {
                kind,
                at_turn: 1 + (seed % 6) as u32,
            },
            Harness::Stubborn {
                at_turn: 1 + (seed % 4) as u32,
            },
        ];
        let cheats = seed.is_multiple_of(4);
        (0..4u64)
            .map(|seat| {
                let legal = styles[((seed + seat) % 4) as usize];
                let style = match cheats && seat == seed % 3 {
                    true => styles[4 + (seed % 2) as usize],
                    false => legal,
                };
                style.player()
            })
            .collect()
    }

    /// The engine's game (`target` 0) or tournament on `deck`, and the calls its players got.
    fn play(
        engine: &dyn Engine,
        players: Vec<Box<dyn PlayerStrategy>>,
        deck: &mut Deck,
        target: u32,
    ) -> (String, Vec<(usize, Call, Response)>) {
        let (mut players, log) = seated(players);
        let result = match target {
            0 => {
                init_players(&mut players);
                format!("{:?}", engine.play_game(&mut players, deck))
            }
            target => format!("{:?}", engine.play_tournament(&mut players, deck, target)),
        };
        let calls = log.borrow().clone();
        (result, calls)
    }

    /// Plays seed's table on the reference's engine with `want_players` and on each of
    /// `engines` with `got_players`, and checks all went alike; how many calls the players got.
    fn all_alike(
        seed: u64,
        target: u32,
        want_players: impl Fn() -> Vec<Box<dyn PlayerStrategy>>,
        got_players: impl Fn() -> Vec<Box<dyn PlayerStrategy>>,
        engines: &[&dyn Engine],
    ) -> usize {
        let mut want_deck = deck(seed);
        let want = play(
            &reference::crazy_eights::Engine,
            want_players(),
            &mut want_deck,
            target,
        );
        for (number, engine) in engines.iter().enumerate() {
            let mut got_deck = deck(seed);
            let got = play(*engine, got_players(), &mut got_deck, target);
            let case = format!("seed {seed}, engine {number}");
            assert_eq!(want.0, got.0, "{case}");
            if let Some(at) = (0..want.1.len()).find(|&at| want.1.get(at) != got.1.get(at)) {
                panic!(
                    "{case}: call {at} was {:?}, not {:?}",
                    got.1.get(at),
                    want.1[at]
                );
            }
            assert_eq!(want.1.len(), got.1.len(), "{case}");
            assert_same_deck(&want_deck, &got_deck, &case);
        }
        want.1.len()
    }

    #[test]
    fn games_go_as_the_reference_with_the_same_calls_to_each_player() {
        linked_to_the_reference("crazy_eights", || {
            let calls: usize = (0..300)
                .map(|seed| {
                    let players = || harness_players(seed);
                    all_alike(seed, 0, players, players, &[&stand_in::Engine])
                })
                .sum();
            assert!(calls > 300 * 30, "the players got {calls} calls");
        });
    }

    #[test]
    fn tournaments_go_as_the_reference_with_the_same_calls_to_each_player() {
        linked_to_the_reference("crazy_eights", || {
            let calls: usize = (0..24)
                .map(|seed| {
                    let players = || harness_players(seed);
                    let target = 50 + 25 * (seed % 8) as u32;
                    all_alike(seed, target, players, players, &[&stand_in::Engine])
                })
                .sum();
            assert!(calls > 24 * 100, "the players got {calls} calls");
        });
    }

    /// The reference's strategies, or the stand-ins', in seats 0, 1 and 3 beside a harness
    /// player.
    fn with_strategies<E, C>(seed: u64) -> Vec<Box<dyn PlayerStrategy>>
    where
        E: PlayerStrategy + Default + 'static,
        C: PlayerStrategy + Default + 'static,
    {
        vec![
            Box::new(E::default()),
            Box::new(C::default()),
            Harness::RandomLegal(seed).player(),
            Box::new(E::default()),
        ]
    }

    /// Seated in the stand-in's engine, a stand-in strategy is called back and calls the
    /// implementation while the game waits; in the reference's, it calls it directly.
    #[test]
    fn the_implementations_strategies_play_as_the_reference_in_either_engine() {
        use reference::crazy_eights::{Cautious, Eager};
        linked_to_the_reference("crazy_eights", || {
            let calls: usize = (0..100)
                .map(|seed| {
                    all_alike(
                        seed,
                        if seed.is_multiple_of(5) { 150 } else { 0 },
                        || with_strategies::<Eager, Cautious>(seed),
                        || with_strategies::<stand_in::Eager, stand_in::Cautious>(seed),
                        &[&reference::crazy_eights::Engine, &stand_in::Engine],
                    )
                })
                .sum();
            assert!(calls > 100 * 30, "the players got {calls} calls");
        });
    }

    /// Plays like its inner player until it is asked for a card.
    struct PanicsWhenAskedToPlay(Box<dyn PlayerStrategy>);

    impl PlayerStrategy for PanicsWhenAskedToPlay {
        fn init(&mut self, player_id: u32, opponent_ids: &[u32]) {
            self.0.init(player_id, opponent_ids);
        }
        fn receive_initial_cards(&mut self, cards: &[Card]) {
            self.0.receive_initial_cards(cards);
        }
        fn should_draw_card(&mut self, top: Card, declared_suit: Option<Suit>) -> bool {
            self.0.should_draw_card(top, declared_suit)
        }
        fn receive_card(&mut self, card: Card) {
            self.0.receive_card(card);
        }
        fn play_card(&mut self) -> Card {
            panic!("no card to play")
        }
        fn declare_suit(&mut self) -> Suit {
            self.0.declare_suit()
        }
        fn process_opponent_actions(&mut self, actions: &[PlayerTurn]) {
            self.0.process_opponent_actions(actions);
        }
        fn reset(&mut self) {
            self.0.reset();
        }
    }

    #[test]
    fn a_player_that_panics_panics_the_test_with_its_message_and_the_link_goes_on() {
        linked_to_the_reference("crazy_eights", || {
            let said = panic_of(|| {
                let mut players: Vec<Box<dyn PlayerStrategy>> = (0..4)
                    .map(|_| -> Box<dyn PlayerStrategy> {
                        Box::new(PanicsWhenAskedToPlay(Box::new(stand_in::Eager::default())))
                    })
                    .collect();
                init_players(&mut players);
                stand_in::Engine.play_game(&mut players, &mut Deck::shuffled(3));
            });
            assert_eq!(said, "no card to play");
            let players = || harness_players(3);
            all_alike(3, 0, players, players, &[&stand_in::Engine]);
        });
    }

    #[test]
    fn a_strategy_the_implementation_does_not_register_is_refused_with_why() {
        use grader_api::stand_in::{CONSTRUCTORS, NoCallbacks, ask};
        linked_to_the_reference("crazy_eights", || {
            let new_strategy = 2;
            let said = panic_of(|| {
                let name =
                    |out: &mut Vec<u8>| grader_api::wire::Wire::put(&"nobody".to_string(), out);
                ask::<u64>(CONSTRUCTORS, new_strategy, name, &mut NoCallbacks);
            });
            assert!(said.contains("no strategy is named `nobody`"), "{said}");
        });
    }

    /// `student_template/src/crazy_eights.rs`'s example test, on the stand-ins' names.
    #[test]
    fn the_templates_example_test_passes() {
        use stand_in::*;
        linked_to_the_reference("crazy_eights", || {
            for seed in 0..20 {
                let mut players: Vec<Box<dyn PlayerStrategy>> =
                    (0..4).map(|_| Harness::FirstLegal.player()).collect();
                init_players(&mut players);
                let result = Engine::new().play_game(&mut players, &mut Deck::shuffled(seed));
                if let Some(winner) = result.winner {
                    for (player, score) in (0u32..).zip(&result.scores) {
                        if player != winner {
                            assert_eq!(*score, 0, "player {player} of game {seed}");
                        }
                    }
                }
            }
        });
    }
}
