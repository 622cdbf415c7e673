//! SSSOM TSV alignments.
