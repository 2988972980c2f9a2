//! The timeline model's counters, declared once: one payment's counts and the sums over many
//! are the same [`Counters`] value, added with `+=`, and the reports write every counter as a
//! `timeline.csv` column (named after its field, documented by its `///` line) from
//! [`Counters::columns`]. A new counter is one line here plus its README column.

engine::counters! {
    /// What happened to one payment under one strategy, or the sum over many payments:
    /// every field is a count and sums are plain additions, so chunks merge exactly in any
    /// grouping.
    pub struct Counters {
        /// Payments simulated, each with its own key.
        payments: "payments",
        /// Attempts the clients sent: every copy's first send plus its retries.
        attempts: "attempts",
        /// Attempts that reached the server; the rest were lost on the way.
        deliveries: "deliveries",
        /// Charges the server made.
        charges: "charges",
        /// Payments charged two or more times: customers charged twice.
        double_charged_payments: "payments",
        /// Charges beyond one per payment.
        extra_charges: "charges",
        /// Deliveries answered with the stored response, not charged: prevented duplicates.
        replays: "deliveries",
        /// Deliveries answered 409 Conflict because the key was in flight.
        conflicts: "deliveries",
        /// Payments for which some copy received a success response.
        succeeded: "payments",
        /// Payments charged although no copy got a success response: the customer was charged and
        /// told the payment failed (the clients gave up, or got a 422); the first ambiguous
        /// outcome.
        gave_up_charged: "payments",
        /// Payments with no success response that were never charged.
        gave_up_not_charged: "payments",
        /// Deliveries answered 422 because their body did not match the key's fingerprint; nothing
        /// charged.
        rejected_mismatches: "deliveries",
        /// Deliveries answered with the stored response of another body because the server keeps no
        /// fingerprint.
        wrong_replays: "deliveries",
        /// Processings that failed with a 500 and charged nothing: `error_rate` of the first
        /// processings.
        server_errors: "processings",
        /// Deliveries answered 500 without processing: the stored failure replayed (`error_policy =
        /// "store"`) or a duplicate answered 500 (`duplicate_answer = "error_500"`).
        errors_replayed: "deliveries",
        /// Deliveries processed again after a 500 that was not stored.
        errors_retried: "deliveries",
        /// Charges made by deliveries that arrived after their key had been pruned.
        expired_key_charges: "charges",
        /// Payments told they succeeded although no charge was made with the body the success
        /// answered: the second ambiguous outcome, 0 for a correct server.
        told_succeeded_not_charged: "payments",
    }
    // The backend's counters (crashes, key store, provider, receipts), then the client
    // lifecycle's (offline clients, reconciliation): the last columns, the client
    // lifecycle's written only when a scenario uses it.
    trailing {
        /// Processings that crashed before the charge (and before calling the provider): nothing
        /// done, no answer.
        crashes_before_charge: "processings",
        /// Processings that crashed after the charge, before the key and response were saved; no
        /// answer.
        crashes_after_charge: "processings",
        /// Processings that crashed after saving the key and response, before the receipt and the
        /// response were sent; no answer.
        crashes_after_save: "processings",
        /// Charges undone by a crash before their commit (`same_transaction`, or strategy `none`
        /// with it): the ledger has no trace; the provider may have moved money.
        charges_lost_by_crash: "charges",
        /// Writes of the key to the other store after the commit that failed: `key_write_failure`
        /// of the writes (`separate_store`, `key_first`).
        key_write_failures: "writes",
        /// Committed charges whose key was never stored, by a failed write or a crash between the
        /// commit and the write; a later delivery charges again.
        keys_lost: "charges",
        /// Payments whose `key_first` key was left in flight by a crash or a failed write.
        stuck_payments: "payments",
        /// Time those keys stayed in flight, until the lock expired or the completer ran, summed
        /// over the payments.
        stuck_in_flight_ms: "whole ms per payment",
        /// Keys in flight the completer found and completed or released.
        completer_recoveries: "keys",
        /// Calls the server made to the provider, retries included.
        provider_calls: "calls",
        /// Provider calls with no answer in time: lost either way or slower than the provider
        /// timeout.
        provider_timeouts: "calls",
        /// Charges the provider made: the money that moved.
        provider_charges: "charges",
        /// Provider charges beyond one per payment: money moved twice.
        duplicate_provider_charges: "charges",
        /// Receipts that reached the customer.
        receipts_sent: "receipts",
        /// Receipts beyond one per payment that reached the customer.
        receipts_duplicated: "receipts",
        /// Payments committed at least once whose customer got no receipt.
        receipts_missing: "payments",
        /// Receipt sends that failed: lost for `direct`, retried by the outbox's sender.
        receipt_send_failures: "sends",
        /// Payments whose client lost the network right after its first send and resent on
        /// reconnect (`client.offline`).
        offline_payments: "payments",
        /// Those of them charged two or more times: the key had expired before the resend.
        offline_double_charged: "payments",
        /// Payments charged and told failed whose look-up by key after giving up found the
        /// charge (`client.reconciliation`): the customer learns it was charged.
        reconciled: "payments",
        /// Payments charged and told failed that no look-up corrected: the key was gone,
        /// `none` keeps none, or there is no reconciliation (then all of `gave_up_charged`).
        told_failed_after_reconciliation: "payments",
    }
}

impl Counters {
    /// The client lifecycle's counters (offline clients, reconciliation): the last
    /// columns, written only when a scenario uses it
    /// ([`TimelineModel::uses_client_lifecycle`](super::TimelineModel::uses_client_lifecycle)),
    /// so that files without it keep their columns.
    pub const CLIENT_COLUMNS: usize = 4;

    /// The backend's counters (crashes, key store, provider, receipts): the columns before
    /// the client lifecycle's, written in every file.
    pub const BACKEND_COLUMNS: usize = Self::TRAILING_COLUMNS - Self::CLIENT_COLUMNS;

    /// Every counter as `(column name, value)`, in column order, the client lifecycle's
    /// only when `client_lifecycle` (see [`Counters::CLIENT_COLUMNS`]).
    pub fn written_columns(
        &self,
        client_lifecycle: bool,
    ) -> impl Iterator<Item = (&'static str, u64)> + use<> {
        let written = Self::COLUMNS.len()
            - if client_lifecycle {
                0
            } else {
                Self::CLIENT_COLUMNS
            };
        self.columns().take(written)
    }

    /// The declared columns written (see [`Counters::written_columns`]).
    pub fn written_declarations(client_lifecycle: bool) -> &'static [engine::counters::Column] {
        let written = Self::COLUMNS.len()
            - if client_lifecycle {
                0
            } else {
                Self::CLIENT_COLUMNS
            };
        &Self::COLUMNS[..written]
    }

    /// Deliveries per payment: the retry amplification.
    pub fn deliveries_per_payment(&self) -> f64 {
        self.deliveries as f64 / self.payments.max(1) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_counter_adds_and_is_a_column() {
        let one = Counters {
            payments: 1,
            charges: 2,
            told_succeeded_not_charged: 1,
            ..Counters::default()
        };
        let mut sum = one + one;
        sum += one;
        assert_eq!((sum.payments, sum.charges), (3, 6));
        assert_eq!(sum.told_succeeded_not_charged, 3);
        let names: Vec<&str> = sum.columns().map(|(name, _)| name).collect();
        assert_eq!(names.len(), 18 + 17 + 4);
        assert_eq!(Counters::BACKEND_COLUMNS, 17);
        assert_eq!(Counters::CLIENT_COLUMNS, 4);
        assert_eq!(names[35], "offline_payments");
        assert_eq!(names[38], "told_failed_after_reconciliation");
        assert_eq!(sum.written_columns(false).count(), 35);
        assert_eq!(Counters::written_declarations(true).len(), 39);
        assert_eq!(names[0], "payments");
        assert_eq!(names[17], "told_succeeded_not_charged");
        assert_eq!(names[18], "crashes_before_charge");
        assert_eq!(names[34], "receipt_send_failures");
        assert_eq!(sum.columns().nth(3), Some(("charges", 6)));
    }
}
