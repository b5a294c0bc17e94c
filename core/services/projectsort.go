package services

import (
	"context"
	"fmt"
)

// The orders of the Projects list: most recently opened first, or by
// name.
const (
	ProjectSortRecent = "recent"
	ProjectSortName   = "name"
)

// projectSortKey is the preference holding the Projects list's order.
const projectSortKey = "projectsSort"

// ProjectSort returns the order the Projects list was last sorted in, so
// that it survives a restart: ProjectSortRecent when none is stored or
// the stored one cannot be understood.
func (s *Services) ProjectSort(ctx context.Context) (string, error) {
	kv, found, err := s.st.GetKV(ctx, prefsNamespace, projectSortKey)
	if err != nil {
		return ProjectSortRecent, err
	}
	if found && kv.Value == ProjectSortName {
		return ProjectSortName, nil
	}
	return ProjectSortRecent, nil
}

// SetProjectSort stores the Projects list's order (recent or name).
func (s *Services) SetProjectSort(ctx context.Context, order string) error {
	if order != ProjectSortRecent && order != ProjectSortName {
		return fmt.Errorf("unknown project order %q (recent, name)", order)
	}
	return s.setPref(ctx, projectSortKey, order)
}
