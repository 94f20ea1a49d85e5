// Package redisstore keeps numerus limiters on Redis.
package redisstore
