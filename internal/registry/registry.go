// Package registry is the one way hieropt names its strategies: planners
// (package hieropt), cost models (costmodel), segment strategies
// (segments), initializer orders (actions) and single-arena planners
// (arena) are each a Registry of values that have a name and a one-line
// doc. A registry refuses an empty or duplicate name, looks values up by
// name, and lists them sorted by name, with their docs, for the command
// line's help.
package registry

import (
	"fmt"
	"sort"
	"sync"
)

// Entry is what a registry holds: a value with a name and a doc line.
type Entry interface {
	Name() string
	Doc() string
}

// Registry holds entries by name. It is safe for concurrent use; the zero
// value is not usable: build one with New.
type Registry[T Entry] struct {
	what string // how errors name an entry, e.g. "costmodel: model"
	mu   sync.RWMutex
	m    map[string]T
}

// New returns an empty registry whose errors name an entry as what, e.g.
// New[Model]("costmodel: model") gives `costmodel: model "x" registered
// twice`.
func New[T Entry](what string) *Registry[T] {
	return &Registry[T]{what: what, m: map[string]T{}}
}

// Register adds e; an empty or duplicate name is an error.
func (r *Registry[T]) Register(e T) error {
	name := e.Name()
	r.mu.Lock()
	defer r.mu.Unlock()
	if name == "" {
		return fmt.Errorf("%s with an empty name", r.what)
	}
	if _, dup := r.m[name]; dup {
		return fmt.Errorf("%s %q registered twice", r.what, name)
	}
	r.m[name] = e
	return nil
}

// MustRegister is Register for the entries a package registers in its
// init: an error there is a bug, and it panics.
func (r *Registry[T]) MustRegister(es ...T) {
	for _, e := range es {
		if err := r.Register(e); err != nil {
			panic(err)
		}
	}
}

// Lookup returns the entry registered under name.
func (r *Registry[T]) Lookup(name string) (T, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.m[name]
	return e, ok
}

// Names returns the registered names, sorted.
func (r *Registry[T]) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.m))
	for n := range r.m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Entries returns the registered entries, sorted by name.
func (r *Registry[T]) Entries() []T {
	names := r.Names()
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]T, len(names))
	for i, n := range names {
		out[i] = r.m[n]
	}
	return out
}
