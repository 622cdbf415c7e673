//! Dense score matrices in `.npy` (float32 / float16, C order, questions × entities). A
//! placeholder: KGC-B writes this reader.
