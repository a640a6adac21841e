package eventrouter

import (
	"fmt"
	"strings"
	"testing"
)

// listOrder is the order a HashMap would have without tree bins (every
// bin a list in insertion order, the table doubled past 3/4 only): what
// the model gave before tree bins were modelled.
func listOrder(pairs []hstorePair) []string {
	n := 16
	for n*3/4 < len(pairs) {
		n *= 2
	}
	buckets := make([][]string, n)
	for _, p := range pairs {
		i := uint32(hmHash(p.key)) & uint32(n-1)
		buckets[i] = append(buckets[i], p.key)
	}
	var out []string
	for _, b := range buckets {
		out = append(out, b...)
	}
	return out
}

func keysOf(pairs []hstorePair) []string {
	out := make([]string, len(pairs))
	for i, p := range pairs {
		out[i] = p.key
	}
	return out
}

// The tree bins of java.util.HashMap reorder a bucket: the values of the
// differential variants pg_hstore_tree_{json,map} (which matched the real
// connector byte for byte) come out in another order than plain lists
// would give, so those cases tell the models apart.
func TestJavaHashMapTreeBins(t *testing.T) {
	var collide []hstorePair
	for i := 0; i < 16; i++ {
		var b strings.Builder
		for j := 3; j >= 0; j-- {
			b.WriteString([]string{"Aa", "BB"}[i>>j&1])
		}
		collide = append(collide, hstorePair{key: b.String()})
	}
	got := keysOf(javaHashMapOrder(collide))
	// the tree over 16 keys of one hash, compareTo order, inserted in
	// order: the root moved to the front, every later node after its
	// tree parent in the list
	if fmt.Sprint(got) == fmt.Sprint(listOrder(collide)) {
		t.Errorf("16 colliding keys: %v, the list order", got)
	}
	if got[0] == "AaAaAaAa" {
		t.Errorf("16 colliding keys: %v; the tree's root should lead", got)
	}
	seen := map[string]bool{}
	for _, k := range got {
		seen[k] = true
	}
	if len(seen) != 16 {
		t.Errorf("16 colliding keys: %d distinct in %v", len(seen), got)
	}
	// a bin of 8 stays a list: insertion order
	eight := keysOf(javaHashMapOrder(collide[:8]))
	if fmt.Sprint(eight) != fmt.Sprint(keysOf(collide[:8])) {
		t.Errorf("8 colliding keys: %v, want insertion order", eight)
	}
	// 9 and 10 keys resize (16 → 32 → 64) instead of treeifying: still
	// insertion order
	ten := keysOf(javaHashMapOrder(collide[:10]))
	if fmt.Sprint(ten) != fmt.Sprint(keysOf(collide[:10])) {
		t.Errorf("10 colliding keys: %v, want insertion order (the table resized instead)", ten)
	}
	// the 11th treeifies
	eleven := keysOf(javaHashMapOrder(collide[:11]))
	if fmt.Sprint(eleven) == fmt.Sprint(keysOf(collide[:11])) {
		t.Errorf("11 colliding keys: %v, want a tree bin's order", eleven)
	}
}

// The red-black tree stays valid: the root is black, no red node has a
// red child, every path has the same number of black nodes, and the
// bin's list holds every node once with the root first.
func TestJavaHashMapTreeInvariants(t *testing.T) {
	m := newJavaHashMap()
	for i := 0; i < 200; i++ {
		var b strings.Builder
		for j := 7; j >= 0; j-- {
			b.WriteString([]string{"Aa", "BB"}[i>>j&1])
		}
		m.put(hstorePair{key: b.String()})
	}
	trees := 0
	for _, first := range m.tab {
		if first == nil || !first.tree {
			continue
		}
		trees++
		if first.parent != nil || first.red {
			t.Fatalf("bin head is not a black root")
		}
		var walk func(n *hmNode) int
		count := 0
		walk = func(n *hmNode) int {
			if n == nil {
				return 1
			}
			count++
			if n.red && (n.left != nil && n.left.red || n.right != nil && n.right.red) {
				t.Fatalf("red node %s has a red child", string(rune(n.key[0])))
			}
			l, r := walk(n.left), walk(n.right)
			if l != r {
				t.Fatalf("black heights differ")
			}
			if !n.red {
				l++
			}
			return l
		}
		walk(first)
		listed := 0
		for e := first; e != nil; e = e.next {
			listed++
		}
		if listed != count {
			t.Fatalf("list %d nodes, tree %d", listed, count)
		}
	}
	if trees == 0 {
		t.Fatal("no tree bin")
	}
}
