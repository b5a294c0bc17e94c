package store

import (
	"errors"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// fullDisk says "the disk is full" for an I/O error on a disk that has no
// free block left. SQLite reports a failed write while growing its WAL
// index or journal as a generic I/O error, which tells the user nothing
// they can act on; the free-space check names the cause.
func fullDisk(dir string, err error) error {
	var se *sqlite.Error
	if err == nil || !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_IOERR {
		return err
	}
	if free, ok := freeBytes(dir); !ok || free > 0 {
		return err
	}
	return &describedError{msg: "the disk is full: nothing was changed; free some space and try again", err: err}
}
