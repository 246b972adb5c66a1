package main

import (
	"log"
	"syscall"
)

// raiseFileLimit lifts the soft limit on open files to the hard one: ten
// thousand idle widgets are ten thousand sockets on each side.
func raiseFileLimit() {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		log.Printf("open-file limit unknown: %v", err)
		return
	}
	if l.Cur < l.Max {
		l.Cur = l.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
			log.Printf("could not raise the open-file limit: %v", err)
		}
	}
}

// fileLimit is the current soft limit on open files.
func fileLimit() int {
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) != nil {
		return 1024
	}
	return int(l.Cur)
}
