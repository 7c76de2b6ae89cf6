package chat

// SetBatchFault makes every batch of replies fail after its statements
// ran, with err from f (nil restores the normal path).
func SetBatchFault(f func() error) { batchFault = f }
