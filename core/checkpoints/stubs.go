package checkpoints

// Temporary: the bodies land with the implementation.

import "context"

type rootState struct{}
type journal struct{}
type fileState struct{}

func (s *Store) saveRoots() error                                                { return nil }
func (r *Recorder) before(ctx context.Context, c Call) *Mark                     { return &Mark{r: r, call: c} }
func (r *Recorder) after(ctx context.Context, m *Mark) Result                    { return Result{} }
func (r *Recorder) prewarm(ctx context.Context) error                            { return nil }
func (s *Store) changes(ctx context.Context, info SessionInfo) ([]Change, error) { return nil, nil }
func (s *Store) diff(ctx context.Context, id string, n int) (string, error)      { return "", nil }
func (s *Store) undo(ctx context.Context, info SessionInfo, u Undo) (UndoResult, error) {
	return UndoResult{}, nil
}
func (s *Store) remove(id string) error          { return nil }
func (s *Store) clean(ctx context.Context) error { return nil }
func (s *Store) usage() (int64, error)           { return 0, nil }
