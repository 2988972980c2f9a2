//! The payment servers under test: one that charges every delivery and one with an
//! Idempotency-Key store, behind one interface, each keeping a ledger of what it charged.

use std::collections::HashMap;
use std::fmt;

/// The key a client sends with a payment request and with every retry of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IdempotencyKey(pub u64);

/// One copy of a payment request arriving at a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delivery {
    /// The request's key (the same on every retry).
    pub key: IdempotencyKey,
    /// 0 for the first send, `k` for the `k`-th retry.
    pub attempt: u32,
}

/// The identifier of one charge in a server's ledger.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ChargeId(pub u64);

/// What a server answered to a delivery.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Response {
    /// The delivery was processed and the customer charged (a new ledger entry).
    Charged(ChargeId),
    /// The key was known: the stored response was replayed and nothing was charged.
    Replayed(ChargeId),
}

/// Which server design.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ServerKind {
    /// Every delivery is processed as a new charge.
    NonIdempotent,
    /// The first delivery of a key charges and stores its response; later ones replay it.
    IdempotencyKey,
}

impl ServerKind {
    /// Both designs, in the order they are reported.
    pub const ALL: [ServerKind; 2] = [ServerKind::NonIdempotent, ServerKind::IdempotencyKey];

    /// The name used in CSV files and charts.
    pub fn name(self) -> &'static str {
        match self {
            ServerKind::NonIdempotent => "non_idempotent",
            ServerKind::IdempotencyKey => "idempotency_key",
        }
    }

    /// A short human label for charts and tables.
    pub fn label(self) -> &'static str {
        match self {
            ServerKind::NonIdempotent => "without Idempotency-Key",
            ServerKind::IdempotencyKey => "with Idempotency-Key",
        }
    }

    /// A fresh server of this design.
    pub fn new_server(self) -> Box<dyn PaymentServer> {
        match self {
            ServerKind::NonIdempotent => Box::new(NonIdempotentServer::default()),
            ServerKind::IdempotencyKey => Box::new(IdempotencyKeyServer::default()),
        }
    }
}

impl fmt::Display for ServerKind {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.name())
    }
}

/// A payment endpoint: it receives deliveries and answers each one.
pub trait PaymentServer {
    /// The design this server implements.
    fn kind(&self) -> ServerKind;
    /// Processes one delivery.
    fn handle(&mut self, delivery: Delivery) -> Response;
    /// What the server has done so far.
    fn tally(&self) -> ServerTally;
}

/// The charges a server made, per key.
#[derive(Debug, Default, Clone)]
pub struct Ledger {
    charges_per_key: HashMap<IdempotencyKey, u32>,
    charges: u64,
}

impl Ledger {
    /// Records a new charge for `key` and returns its id.
    pub fn charge(&mut self, key: IdempotencyKey) -> ChargeId {
        let id = ChargeId(self.charges);
        self.charges += 1;
        *self.charges_per_key.entry(key).or_insert(0) += 1;
        id
    }

    /// Charges made in all.
    pub fn charges(&self) -> u64 {
        self.charges
    }

    /// Keys (requests) that were charged two or more times.
    pub fn double_charged_requests(&self) -> u64 {
        self.charges_per_key.values().filter(|&&n| n >= 2).count() as u64
    }

    /// Charges beyond the first of each key.
    pub fn extra_charges(&self) -> u64 {
        self.charges_per_key
            .values()
            .map(|&n| u64::from(n.saturating_sub(1)))
            .sum()
    }

    /// The tally of a server with this ledger that received `deliveries` deliveries and
    /// answered `prevented_duplicates` of them from its key store.
    pub fn tally(&self, deliveries: u64, prevented_duplicates: u64) -> ServerTally {
        ServerTally {
            deliveries,
            charges: self.charges(),
            double_charged_requests: self.double_charged_requests(),
            extra_charges: self.extra_charges(),
            prevented_duplicates,
        }
    }
}

/// A server's counters, all in numbers of deliveries, charges or requests.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ServerTally {
    /// Deliveries the server received.
    pub deliveries: u64,
    /// Charges it made.
    pub charges: u64,
    /// Requests (keys) it charged two or more times.
    pub double_charged_requests: u64,
    /// Charges beyond one per request.
    pub extra_charges: u64,
    /// Deliveries answered from the key store without charging.
    pub prevented_duplicates: u64,
}

impl std::ops::AddAssign for ServerTally {
    fn add_assign(&mut self, other: Self) {
        self.deliveries += other.deliveries;
        self.charges += other.charges;
        self.double_charged_requests += other.double_charged_requests;
        self.extra_charges += other.extra_charges;
        self.prevented_duplicates += other.prevented_duplicates;
    }
}

/// Level 0: every delivery is processed as a new payment.
#[derive(Debug, Default)]
pub struct NonIdempotentServer {
    ledger: Ledger,
    deliveries: u64,
}

impl PaymentServer for NonIdempotentServer {
    fn kind(&self) -> ServerKind {
        ServerKind::NonIdempotent
    }

    fn handle(&mut self, delivery: Delivery) -> Response {
        self.deliveries += 1;
        Response::Charged(self.ledger.charge(delivery.key))
    }

    fn tally(&self) -> ServerTally {
        self.ledger.tally(self.deliveries, 0)
    }
}

/// The Idempotency-Key pattern: the first delivery of a key charges and stores the response;
/// every later delivery with that key gets the stored response and charges nothing.
#[derive(Debug, Default)]
pub struct IdempotencyKeyServer {
    ledger: Ledger,
    stored_responses: HashMap<IdempotencyKey, ChargeId>,
    deliveries: u64,
    replays: u64,
}

impl PaymentServer for IdempotencyKeyServer {
    fn kind(&self) -> ServerKind {
        ServerKind::IdempotencyKey
    }

    fn handle(&mut self, delivery: Delivery) -> Response {
        self.deliveries += 1;
        if let Some(&charge) = self.stored_responses.get(&delivery.key) {
            self.replays += 1;
            return Response::Replayed(charge);
        }
        let charge = self.ledger.charge(delivery.key);
        self.stored_responses.insert(delivery.key, charge);
        Response::Charged(charge)
    }

    fn tally(&self) -> ServerTally {
        self.ledger.tally(self.deliveries, self.replays)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deliver(server: &mut dyn PaymentServer, key: u64, copies: u32) -> Vec<Response> {
        (0..copies)
            .map(|attempt| {
                server.handle(Delivery {
                    key: IdempotencyKey(key),
                    attempt,
                })
            })
            .collect()
    }

    #[test]
    fn non_idempotent_server_charges_every_delivery() {
        let mut server = NonIdempotentServer::default();
        let responses = deliver(&mut server, 7, 3);
        assert!(responses.iter().all(|r| matches!(r, Response::Charged(_))));
        deliver(&mut server, 8, 1);
        assert_eq!(
            server.tally(),
            ServerTally {
                deliveries: 4,
                charges: 4,
                double_charged_requests: 1,
                extra_charges: 2,
                prevented_duplicates: 0,
            }
        );
    }

    #[test]
    fn key_server_charges_once_and_replays_the_stored_response() {
        let mut server = IdempotencyKeyServer::default();
        let responses = deliver(&mut server, 7, 3);
        let Response::Charged(first) = responses[0] else {
            panic!("first delivery must charge, got {:?}", responses[0]);
        };
        assert_eq!(
            &responses[1..],
            &[Response::Replayed(first), Response::Replayed(first)]
        );
        deliver(&mut server, 8, 1);
        assert_eq!(
            server.tally(),
            ServerTally {
                deliveries: 4,
                charges: 2,
                double_charged_requests: 0,
                extra_charges: 0,
                prevented_duplicates: 2,
            }
        );
    }
}
