package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// KV is one row of the kv table.
type KV struct {
	Namespace string
	Key       string
	Value     string
	UpdatedAt int64 // unix milliseconds
}

// GetKV returns the row for (namespace, key); found is false when there is
// none.
func (s *Store) GetKV(ctx context.Context, namespace, key string) (kv KV, found bool, err error) {
	kv = KV{Namespace: namespace, Key: key}
	// Prepared once: runtimes read memory before every prompt.
	err = s.getKV.QueryRowContext(ctx, namespace, key).Scan(&kv.Value, &kv.UpdatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return kv, false, nil
	}
	if err != nil {
		return kv, false, fmt.Errorf("read %s/%s: %w", namespace, key, Describe(err))
	}
	return kv, true, nil
}

// CompareAndSwapKV stores value under (namespace, key) only if the stored
// value is still expected (expected == nil: only if there is no row). It
// returns ErrConflict otherwise and changes nothing. The check and the write
// share one immediate transaction, so two writers, in one process or two,
// cannot both win.
func (s *Store) CompareAndSwapKV(ctx context.Context, namespace, key string, expected *string, value string) error {
	return s.Write(ctx, func(tx *sql.Tx) error {
		return casKV(ctx, tx, namespace, key, expected, &value, s.now().UnixMilli())
	})
}

// CompareAndDeleteKV removes the row only if it still holds expected.
func (s *Store) CompareAndDeleteKV(ctx context.Context, namespace, key string, expected string) error {
	return s.Write(ctx, func(tx *sql.Tx) error {
		return casKV(ctx, tx, namespace, key, &expected, nil, 0)
	})
}

func casKV(ctx context.Context, tx *sql.Tx, namespace, key string, expected, value *string, now int64) error {
	var cur string
	err := tx.QueryRowContext(ctx, `SELECT value FROM kv WHERE namespace = ? AND key = ?`, namespace, key).Scan(&cur)
	found := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("read %s/%s: %w", namespace, key, Describe(err))
	}
	if (expected == nil) != !found || (expected != nil && *expected != cur) {
		return ErrConflict
	}
	if value == nil {
		_, err = tx.ExecContext(ctx, `DELETE FROM kv WHERE namespace = ? AND key = ?`, namespace, key)
	} else {
		_, err = tx.ExecContext(ctx, `INSERT INTO kv (namespace, key, value, updated_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
			namespace, key, *value, now)
	}
	if err != nil {
		return fmt.Errorf("write %s/%s: %w", namespace, key, Describe(err))
	}
	return nil
}

// KVNamespace returns every key and value of a namespace (small
// namespaces such as preferences).
func (s *Store) KVNamespace(ctx context.Context, namespace string) (map[string]string, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT key, value FROM kv WHERE namespace = ?`, namespace)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", namespace, Describe(err))
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("read %s: %w", namespace, Describe(err))
		}
		out[k] = v
	}
	return out, Describe(rows.Err())
}
