//go:build !amd64

package memspace

func prefetch(p *byte) {}
