package storage

import (
	"testing"

	"github.com/tidwall/buntdb"
)

// TestROB_4_LegacyResourceRevisionKeysDropped: a store restored from a
// snapshot written before the resources' last changes were kept in memory
// (its m/res/ keys) opens without them, and its lists answer as before.
func TestROB_4_LegacyResourceRevisionKeysDropped(t *testing.T) {
	dir := t.TempDir()
	p, err := OpenFilePersister(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(Config{Persister: p})
	if err != nil {
		t.Fatal(err)
	}
	put(t, s, "core/configmaps/default/a", `{"metadata":{"name":"a"}}`)
	// What an older store kept beside its objects, and snapshotted.
	if err := s.db.Update(func(tx *buntdb.Tx) error {
		_, _, err := tx.Set(legacyResourceRevPrefix+"core/configmaps", "2", nil)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.Snapshot(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	p, err = OpenFilePersister(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err = Open(Config{Persister: p})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_ = s.db.View(func(tx *buntdb.Tx) error {
		if v, err := tx.Get(legacyResourceRevPrefix + "core/configmaps"); err == nil {
			t.Errorf("the legacy key survived: %q", v)
		}
		return nil
	})
	l, err := s.List(ListOptions{Prefix: "core/configmaps/"})
	if err != nil || len(l.Items) != 1 {
		t.Fatalf("list after restore: %v %v", l.Items, err)
	}
}
