//! Properties of the model that must hold for every seed, size, ACK-loss probability and retry
//! limit, checked on random cases with proptest through the library API.
//!
//! The expected values are the definitions of the servers (a key server charges once per
//! request; a non-idempotent server charges every delivery), conservation laws between the two
//! servers, monotonicity in p (every p shares the same draws), and agreement between the real
//! servers (`Engine::Servers`) and the fast engine at several thread counts.

use crate::common::run_model;
use proptest::prelude::*;
use simulate::model::article::server::ServerKind;
use simulate::model::article::{ArticleModel, Engine};
use simulate::report::article::csv::results_csv;

/// Random experiments: any seed (most above 2^32), up to 3,000 requests, 1 to 4 probabilities
/// in [0, 1] (edges included), up to 30 retries, 1 or 2 runs.
fn models() -> impl Strategy<Value = ArticleModel> {
    let probability = prop_oneof![1 => Just(0.0), 1 => Just(1.0), 8 => 0.0..=1.0f64];
    (
        any::<u64>(),
        1..=3_000u64,
        prop::collection::vec(probability, 1..=4),
        0..=30u32,
        1..=2u32,
    )
        .prop_map(
            |(seed, requests, ack_loss, max_retries, runs)| ArticleModel {
                ack_loss,
                requests,
                max_retries,
                seed,
                runs,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn servers_charge_as_designed(model in models()) {
        let results = run_model(&model, Engine::Fast { threads: 2 });
        prop_assert_eq!(results.points.len(), model.ack_loss.len() * model.runs as usize);
        for point in &results.points {
            let plain = point.server(ServerKind::NonIdempotent);
            let keyed = point.server(ServerKind::IdempotencyKey);
            // The key server charges exactly once per request.
            prop_assert_eq!(keyed.charges, model.requests);
            prop_assert_eq!(keyed.double_charged_requests, 0);
            prop_assert_eq!(keyed.extra_charges, 0);
            // The non-idempotent server charges every delivery.
            prop_assert_eq!(plain.charges, plain.deliveries);
            prop_assert_eq!(plain.prevented_duplicates, 0);
            // Both see the same deliveries; what one charges extra the other prevents.
            prop_assert_eq!(plain.deliveries, keyed.deliveries);
            prop_assert_eq!(plain.extra_charges, keyed.prevented_duplicates);
            prop_assert_eq!(plain.extra_charges, plain.deliveries - model.requests);
            // Each request is delivered 1 to max_retries + 1 times.
            prop_assert!(plain.deliveries >= model.requests);
            prop_assert!(
                plain.deliveries <= model.requests * (u64::from(model.max_retries) + 1)
            );
            prop_assert!(plain.double_charged_requests <= plain.extra_charges);
            // The histogram tells the same story: requests with 2+ attempts, total attempts.
            let histogram = &point.attempts;
            prop_assert_eq!(histogram.requests(), model.requests);
            prop_assert_eq!(
                plain.double_charged_requests,
                model.requests - histogram.requests_with(1)
            );
            let total: u64 = (1..=histogram.max_attempts())
                .map(|attempts| u64::from(attempts) * histogram.requests_with(attempts))
                .sum();
            prop_assert_eq!(total, plain.deliveries);
            // The edges are closed forms: p = 0 never retries, p = 1 always retries to the end.
            if point.ack_loss == 0.0 {
                prop_assert_eq!(plain.deliveries, model.requests);
            }
            if point.ack_loss == 1.0 {
                prop_assert_eq!(
                    plain.deliveries,
                    model.requests * (u64::from(model.max_retries) + 1)
                );
                prop_assert_eq!(histogram.retries_exhausted(), model.requests);
            }
        }
    }

    #[test]
    fn double_charges_never_fall_when_p_rises(
        seed in any::<u64>(),
        requests in 1..=3_000u64,
        max_retries in 0..=30u32,
        mut ack_loss in prop::collection::vec(0.0..=1.0f64, 2..=6),
    ) {
        ack_loss.sort_by(f64::total_cmp);
        let model = ArticleModel { ack_loss, requests, max_retries, seed, runs: 1 };
        let results = run_model(&model, Engine::Fast { threads: 1 });
        for pair in results.points.windows(2) {
            let lower = pair[0].server(ServerKind::NonIdempotent);
            let higher = pair[1].server(ServerKind::NonIdempotent);
            prop_assert!(lower.double_charged_requests <= higher.double_charged_requests);
            prop_assert!(lower.extra_charges <= higher.extra_charges);
            prop_assert!(lower.deliveries <= higher.deliveries);
        }
    }

    #[test]
    fn results_do_not_depend_on_threads_or_engine(model in models()) {
        let one = run_model(&model, Engine::Fast { threads: 1 });
        prop_assert_eq!(&one, &run_model(&model, Engine::Fast { threads: 3 }));
        prop_assert_eq!(&one, &run_model(&model, Engine::Servers));
    }

    #[test]
    fn results_csv_parses_back_to_the_same_numbers(model in models()) {
        let results = run_model(&model, Engine::Fast { threads: 2 });
        let bytes = results_csv(&results);
        let mut reader = csv::Reader::from_reader(bytes.as_slice());
        let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        prop_assert_eq!(rows.len(), results.points.len() * 2);
        let expected = results.points.iter().flat_map(|point| {
            ServerKind::ALL.map(|kind| (point, kind))
        });
        for (row, (point, kind)) in rows.iter().zip(expected) {
            let number = |column: usize| row[column].parse::<u64>().unwrap();
            let tally = point.server(kind);
            prop_assert_eq!(number(0), u64::from(point.run));
            // p reads back as exactly the same double.
            prop_assert_eq!(row[1].parse::<f64>().unwrap().to_bits(), point.ack_loss.to_bits());
            prop_assert_eq!(&row[2], kind.name());
            prop_assert_eq!(number(3), model.requests);
            prop_assert_eq!(number(4), u64::from(model.max_retries));
            prop_assert_eq!(number(5), model.seed);
            prop_assert_eq!(number(6), tally.deliveries);
            prop_assert_eq!(number(7), tally.charges);
            prop_assert_eq!(number(8), tally.double_charged_requests);
            prop_assert_eq!(number(9), tally.extra_charges);
            prop_assert_eq!(number(10), tally.prevented_duplicates);
            prop_assert_eq!(number(11), point.attempts.retries_exhausted());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Every summary row of a random experiment: the interval holds the observed mean and
    /// stays within the values a request can take; the closed-form variance is not negative
    /// (it is computed without cancellation, also as p approaches 1).
    #[test]
    fn summary_intervals_hold_the_mean_and_stay_possible(model in models()) {
        use simulate::model::article::summary::summarise;
        let results = run_model(&model, Engine::Fast { threads: 1 });
        for row in summarise(&results) {
            let (smallest, largest) = row.metric.bounds(row.server, model.max_retries);
            let slack = 1e-12 * (largest as f64).max(1.0);
            prop_assert!(
                row.interval.low <= row.mean + slack && row.mean <= row.interval.high + slack,
                "{row:?}"
            );
            prop_assert!(
                smallest as f64 - slack <= row.interval.low
                    && row.interval.high <= largest as f64 + slack,
                "{row:?}"
            );
            let expected = row.metric.closed_form(row.server, row.ack_loss, model.max_retries);
            prop_assert!(expected.variance >= 0.0 && expected.mean_below_maximum >= 0.0);
        }
    }
}
