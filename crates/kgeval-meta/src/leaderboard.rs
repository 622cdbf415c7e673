//! A leaderboard with significance marks and tiers, from a [`SignificanceResult`].
//!
//! - **Order**: by mean, best first (larger is better unless the metric is lower-is-better);
//!   equal means keep table order.
//! - **Letters**: the system's position in the input (the table's order), `a`, `b`, …, `z`,
//!   `aa`, `ab`, … (ranx's style): a system keeps its letter in every metric's leaderboard and
//!   in every table of a report, whatever the order of the means.
//! - **Marks**: a row lists the rows it significantly beats: a better mean and an adjusted
//!   p-value below α (`p_adjusted < alpha`); their letters are its superscripts.
//! - **Tiers**: tier 1 is the best system plus every system not significantly worse than it
//!   (adjusted p ≥ α against the best); remove them and repeat with the best remaining system
//!   for tier 2, and so on. Tiers are therefore contiguous in leaderboard order only when
//!   significance is; a system joins the tier of the first leader it cannot be told apart from.

use kgeval_model::meta::significance::{Leaderboard, LeaderboardRow, SignificanceResult};

/// The letter of the system at input position `index`: `a`…`z`, then `aa`, `ab`, … (spreadsheet
/// columns in lower case).
#[must_use]
pub fn letter(index: usize) -> String {
    let mut n = index + 1;
    let mut out = Vec::new();
    while n > 0 {
        n -= 1;
        out.push(b'a' + (n % 26) as u8);
        n /= 26;
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// Builds the leaderboard of a significance result (see the module documentation).
#[must_use]
pub fn leaderboard(result: &SignificanceResult) -> Leaderboard {
    let k = result.systems.len();
    let oriented = |s: usize| if result.higher_is_better { result.means[s] } else { -result.means[s] };
    let mut order: Vec<usize> = (0..k).collect();
    order.sort_by(|&i, &j| oriented(j).total_cmp(&oriented(i)));
    let significant = |i: usize, j: usize| result.pair(i, j).is_some_and(|p| p.is_significant(result.alpha));
    let mut rows: Vec<LeaderboardRow> = order
        .iter()
        .map(|&system| LeaderboardRow {
            system,
            name: result.systems[system].clone(),
            letter: letter(system),
            mean: result.means[system],
            beats: order
                .iter()
                .enumerate()
                .filter(|&(_, &other)| oriented(system) > oriented(other) && significant(system, other))
                .map(|(row, _)| row)
                .collect(),
            tier: 0,
        })
        .collect();
    let mut tier = 0;
    for leader in 0..rows.len() {
        if rows[leader].tier != 0 {
            continue;
        }
        tier += 1;
        let leader_system = rows[leader].system;
        for row in rows.iter_mut().skip(leader) {
            if row.tier == 0 && (row.system == leader_system || !significant(leader_system, row.system)) {
                row.tier = tier;
            }
        }
    }
    Leaderboard { metric: result.metric.clone(), alpha: result.alpha, rows }
}
