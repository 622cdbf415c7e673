//! Tests of [`super::Interner`].

use super::*;

/// Ids are dense and in first-insertion order, whatever the table does when it grows;
/// the empty string and repeats are ids like any other.
#[test]
fn ids_are_dense_in_first_insertion_order() {
    let mut interner = Interner::new();
    let words: Vec<String> = (0..5000).map(|i| format!("http://example.org/e{}", i % 3001)).collect();
    let ids: Vec<u32> = words.iter().map(|w| interner.intern(w).index()).collect();
    assert_eq!(interner.len(), 3001);
    for (i, id) in ids.iter().enumerate() {
        assert_eq!(*id as usize, i % 3001);
    }
    assert_eq!(interner.resolve(TermId(3000)), "http://example.org/e3000");
    let empty = interner.intern("");
    assert_eq!((empty.index(), interner.resolve(empty)), (3001, ""));
    assert_eq!(interner.get(""), Some(empty));
    assert_eq!(interner.get("http://example.org/e7"), Some(TermId(7)));
    assert_eq!(interner.get("http://example.org/e3001"), None);
    let mut reserved = Interner::new();
    reserved.reserve(10, 100);
    let hashed: Vec<u32> = words.iter().map(|w| reserved.intern_hashed(w, Interner::hash(w)).index()).collect();
    assert_eq!(hashed, ids);
    reserved.truncate(2000);
    assert_eq!((reserved.len(), reserved.get("http://example.org/e2000")), (2000, None));
    assert_eq!(reserved.intern("http://example.org/e2500").index(), 2000);
    assert_eq!(reserved.intern("http://example.org/e1999").index(), 1999);
    assert_eq!(reserved.resolve(TermId(2000)), "http://example.org/e2500");
    assert_eq!(
        format!("{:?}", {
            let mut small = Interner::new();
            small.intern("a");
            small.intern("b");
            small
        }),
        r#"{"a", "b"}"#
    );
}

/// A batch gives the ids, and leaves the interner, exactly as interning its strings one by
/// one does, at one thread and at two: strings seen before the batch, repeats inside a
/// part and across parts, an empty part, and enough strings to take the sharded path.
#[test]
fn a_batch_interns_as_one_by_one_at_any_thread_count() {
    let word = |i: usize| format!("http://example.org/onto#e{}", (i * 7919) % 6007);
    let old: Vec<String> = (0..3000).map(|i| format!("http://example.org/onto#e{}", i * 3)).collect();
    let parts: Vec<Vec<(String, TermHash)>> = [0..5000, 5000..5000, 5000..9000, 9000..20000]
        .into_iter()
        .map(|range| range.map(|i| (word(i), Interner::hash(&word(i)))).collect())
        .collect();
    let batches: Vec<TermBatch> = parts.iter().map(|p| p.iter().cloned().collect()).collect();
    let mut one_by_one = Interner::new();
    for w in &old {
        one_by_one.intern(w);
    }
    let expected: Vec<Vec<TermId>> =
        parts.iter().map(|p| p.iter().map(|(w, _)| one_by_one.intern(w)).collect()).collect();
    // Ids above the old ones, and below: the batch mixes both.
    assert_eq!(expected[0][0], TermId(0));
    assert_eq!(expected[0][1], TermId(3000));
    assert_eq!(one_by_one.len(), 3000 + 6007 - 2003);
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
        let mut batched = Interner::new();
        for w in &old {
            batched.intern(w);
        }
        let ids = pool.install(|| batched.intern_batch(batches.clone()));
        assert_eq!(ids, expected, "{threads} threads");
        assert_eq!(format!("{batched:?}"), format!("{one_by_one:?}"));
        for i in [0, 17, 6006, 6007] {
            assert_eq!(batched.get(&word(i)), one_by_one.get(&word(i)));
        }
        assert_eq!(batched.intern("http://example.org/new"), TermId(one_by_one.len() as u32));
        batched.truncate(one_by_one.len());
        assert_eq!(batched.get("http://example.org/new"), None);
    }
}

/// Many small parts numbered on their own threads: a string first seen in one part and
/// repeated in later ones (and in the same one) gets the id of one-by-one interning, and
/// every id reads back its string.
#[test]
fn many_parts_number_like_one_by_one() {
    let word = |i: usize| format!("http://example.org/o#{}", "x".repeat(i % 5) + &((i * 31) % 2500).to_string());
    let parts: Vec<Vec<(String, TermHash)>> = (0..40)
        .map(|p| (p * 150..p * 150 + 150 + p % 3).map(|i| (word(i), Interner::hash(&word(i)))).collect())
        .collect();
    let batches: Vec<TermBatch> = parts.iter().map(|p| p.iter().cloned().collect()).collect();
    let mut one_by_one = Interner::new();
    one_by_one.intern("http://example.org/o#x7");
    let expected: Vec<Vec<TermId>> =
        parts.iter().map(|p| p.iter().map(|(w, _)| one_by_one.intern(w)).collect()).collect();
    assert!(one_by_one.len() < parts.iter().map(Vec::len).sum::<usize>(), "repeats");
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
        let mut batched = Interner::new();
        batched.intern("http://example.org/o#x7");
        let ids = pool.install(|| batched.intern_batch(batches.clone()));
        assert_eq!(ids, expected, "{threads} threads");
        assert_eq!(format!("{batched:?}"), format!("{one_by_one:?}"));
        for (w, _) in parts.iter().flatten().step_by(7) {
            assert_eq!(batched.get(w), one_by_one.get(w));
        }
    }
}

/// Two batches one after the other (the reference, then a system), with strings of several
/// UTF-8 lengths: the second batch's new strings get the ids after the first's, repeats of
/// the first batch get its ids, and every string reads back whole.
#[test]
fn batches_append_after_batches() {
    let word = |i: usize| format!("http://example.org/{}#é{}→{}", i % 3, (i * 13) % 4100, "ß".repeat(i % 4));
    let batch = |range: std::ops::Range<usize>| -> Vec<Vec<(String, TermHash)>> {
        let (start, end) = (range.start, range.end);
        let middle = (start + end) / 2;
        [start..middle, middle..end]
            .into_iter()
            .map(|r| r.map(|i| (word(i), Interner::hash(&word(i)))).collect())
            .collect()
    };
    let (first, second) = (batch(0..6000), batch(3000..12000));
    let mut one_by_one = Interner::new();
    let mut expected = Vec::new();
    for parts in [&first, &second] {
        expected.push(
            parts.iter().map(|p| p.iter().map(|(w, _)| one_by_one.intern(w)).collect::<Vec<_>>()).collect::<Vec<_>>(),
        );
    }
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
        let mut batched = Interner::new();
        for (parts, expected) in [&first, &second].into_iter().zip(&expected) {
            let batches: Vec<TermBatch> = parts.iter().map(|p| p.iter().cloned().collect()).collect();
            assert_eq!(&pool.install(|| batched.intern_batch(batches)), expected, "{threads} threads");
        }
        assert_eq!(format!("{batched:?}"), format!("{one_by_one:?}"));
        for i in (0..12000).step_by(11) {
            let id = batched.get(&word(i)).expect("interned");
            assert_eq!(batched.resolve(id), word(i));
        }
    }
}

/// Truncating back into or before a batch (a reader that gives up on a parallel read) leaves
/// the interner as one-by-one interning of the strings kept would: the batch's buffers that
/// hold no kept string go, and strings interned afterwards read back whole.
#[test]
fn truncating_a_batch_forgets_its_strings() {
    let word = |i: usize| format!("http://example.org/t#{}", (i * 37) % 5003);
    let old: Vec<String> = (0..100).map(|i| format!("http://example.org/old#{i}")).collect();
    let parts: Vec<TermBatch> = [0..4000, 4000..9000]
        .into_iter()
        .map(|range| range.map(|i| (word(i), Interner::hash(&word(i)))).collect())
        .collect();
    for keep in [old.len(), old.len() + 1, old.len() + 3000] {
        let mut batched = Interner::new();
        let mut one_by_one = Interner::new();
        for w in &old {
            batched.intern(w);
            one_by_one.intern(w);
        }
        batched.intern_batch(parts.clone());
        batched.truncate(keep);
        for part in &parts {
            for (s, _) in part.iter() {
                if one_by_one.len() == keep {
                    break;
                }
                one_by_one.intern(s);
            }
        }
        assert_eq!(format!("{batched:?}"), format!("{one_by_one:?}"), "keep {keep}");
        for i in (0..9000).step_by(13) {
            assert_eq!(batched.get(&word(i)), one_by_one.get(&word(i)), "keep {keep}");
        }
        for w in ["http://example.org/after", "http://example.org/t#4999"] {
            let id = batched.intern(w);
            assert_eq!((id, batched.resolve(id)), (one_by_one.intern(w), w), "keep {keep}");
        }
        if keep == old.len() {
            assert_eq!(batched.chunks.len(), 1, "the batch's chunks are gone");
        }
    }
}
