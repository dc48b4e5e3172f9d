package fsroot

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

func closeFD(fd int) { unix.Close(fd) }

func uidString() string { return strconv.Itoa(os.Getuid()) }
