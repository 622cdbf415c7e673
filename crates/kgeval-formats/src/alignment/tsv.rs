//! TSV / CSV alignments.
