//go:build !linux

package registry

import "os"

// syncFiles gets the files' data to the disk, one file at a time: this
// platform has no syncfs.
func syncFiles(files []*os.File) error {
	for _, f := range files {
		if err := f.Sync(); err != nil {
			return err
		}
	}
	return nil
}
