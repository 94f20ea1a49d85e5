package bench
func stopRedis() {}
