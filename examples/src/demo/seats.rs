//! `reserve_seat`: seats A1..C4, some taken.

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use mcp_errors_core::ToolError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Seats taken when the server starts.
pub const INITIALLY_TAKEN: [&str; 3] = ["A1", "B2", "C3"];

/// Arguments of `reserve_seat`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReserveSeatArgs {
    /// The seat, a row A to C and a number 1 to 4, e.g. `B3`.
    pub seat_id: String,
}

/// A reserved seat.
#[derive(Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Reservation {
    /// The seat.
    pub id: String,
    /// The reservation's number: `RS-` and how many seats this server has reserved.
    pub reservation_id: String,
    /// Always `reserved`.
    pub status: String,
}

/// How `reserve_seat` fails.
#[derive(Debug, thiserror::Error, ToolError)]
pub enum SeatError {
    #[error("there is no seat {seat_id}")]
    #[category(not_found)]
    #[hint("seats are A1 to C4: a row A, B or C and a number 1 to 4")]
    UnknownSeat {
        #[detail]
        seat_id: String,
    },

    #[error("seat {seat_id} is already taken")]
    #[category(conflict)]
    #[hint("free seats now: {free}")]
    SeatTaken {
        #[detail]
        seat_id: String,
        #[detail]
        free: String,
    },
}

/// The seat map of one server, shared by its sessions.
#[derive(Debug)]
pub struct Seats {
    taken: Mutex<BTreeSet<String>>,
    reserved: AtomicU64,
}

impl Default for Seats {
    fn default() -> Self {
        Seats {
            taken: Mutex::new(INITIALLY_TAKEN.iter().map(|s| s.to_string()).collect()),
            reserved: AtomicU64::new(0),
        }
    }
}

fn all_seats() -> impl Iterator<Item = String> {
    ['A', 'B', 'C']
        .into_iter()
        .flat_map(|row| (1..=4).map(move |n| format!("{row}{n}")))
}

impl Seats {
    /// Reserves `seat_id` if it exists and is free.
    pub fn reserve(&self, seat_id: &str) -> Result<Reservation, SeatError> {
        let seat = seat_id.trim().to_uppercase();
        if !all_seats().any(|s| s == seat) {
            return Err(SeatError::UnknownSeat {
                seat_id: seat_id.to_owned(),
            });
        }
        let mut taken = self.taken.lock().unwrap_or_else(|e| e.into_inner());
        if !taken.insert(seat.clone()) {
            let free: Vec<String> = all_seats().filter(|s| !taken.contains(s)).collect();
            return Err(SeatError::SeatTaken {
                seat_id: seat,
                free: free.join(", "),
            });
        }
        let n = self.reserved.fetch_add(1, Ordering::SeqCst) + 1;
        Ok(Reservation {
            reservation_id: format!("RS-{n}"),
            id: seat,
            status: "reserved".to_owned(),
        })
    }
}
