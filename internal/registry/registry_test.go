package registry_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/internal/registry"
)

type entry struct{ name, doc string }

func (e entry) Name() string { return e.name }
func (e entry) Doc() string  { return e.doc }

func TestRegistry(t *testing.T) {
	r := registry.New[entry]("test: thing")
	require.NoError(t, r.Register(entry{"b", "the second"}))
	require.NoError(t, r.Register(entry{"a", "the first"}))
	assert.EqualError(t, r.Register(entry{"a", "again"}), `test: thing "a" registered twice`)
	assert.EqualError(t, r.Register(entry{"", "nameless"}), `test: thing with an empty name`)
	assert.Equal(t, []string{"a", "b"}, r.Names())
	assert.Equal(t, []entry{{"a", "the first"}, {"b", "the second"}}, r.Entries())
	e, ok := r.Lookup("b")
	assert.True(t, ok)
	assert.Equal(t, "the second", e.Doc())
	_, ok = r.Lookup("c")
	assert.False(t, ok)
	assert.Panics(t, func() { r.MustRegister(entry{"c", ""}, entry{"c", ""}) })
}
