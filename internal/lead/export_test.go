package lead

// SetSweepBetween makes f run between the sweep's reading and its writing
// of each chunk (nil: nothing), so that a test can move a conversation
// meanwhile.
func SetSweepBetween(f func()) { sweepBetween = f }
