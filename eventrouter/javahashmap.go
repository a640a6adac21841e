package eventrouter

import "unicode/utf16"

// javaHashMap is java.util.HashMap<String, V> (default capacity 16, load
// factor 0.75) as far as its iteration order goes, after a sequence of
// puts of distinct keys (HStoreConverter.fromString fills one): the table
// of bins, each a linked list in insertion order, doubled when the size
// passes 3/4 of it (each bin split into a low and a high list, order
// kept); a bin that reaches 9 nodes resizes the table instead while it
// is narrower than 64 (MIN_TREEIFY_CAPACITY), else becomes a tree bin:
// a red-black tree ordered by hash, then String.compareTo, whose nodes
// keep a linked list (the iteration order) in which a new node follows
// its tree parent and the root is moved to the front after every
// insertion (moveRootToFront); on a resize a tree bin is split into two
// lists, one of 6 nodes or fewer becomes a plain bin (untreeify), a
// larger one is treeified again when the other half is not empty. This is
// JDK 8-21's HashMap (TREEIFY_THRESHOLD 8, UNTREEIFY_THRESHOLD 6); the
// keys are Strings, so tieBreakOrder is never reached.
type javaHashMap struct {
	tab  []*hmNode
	size int
}

// hmNode is a HashMap.Node or, in a tree bin, a TreeNode.
type hmNode struct {
	hash int32 // HashMap.hash: h ^ (h >>> 16)
	key  []uint16
	pair hstorePair
	next *hmNode

	tree                      bool
	parent, left, right, prev *hmNode
	red                       bool
}

const (
	hmTreeifyThreshold   = 8
	hmUntreeifyThreshold = 6
	hmMinTreeifyCapacity = 64
)

func newJavaHashMap() *javaHashMap { return &javaHashMap{tab: make([]*hmNode, 16)} }

// hmHash is HashMap.hash of a String key.
func hmHash(k string) int32 {
	h := uint32(javaStringHash(k))
	return int32(h ^ (h >> 16))
}

// compareUTF16 is String.compareTo.
func compareUTF16(a, b []uint16) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return int(a[i]) - int(b[i])
		}
	}
	return len(a) - len(b)
}

func (m *javaHashMap) index(h int32) int { return int(uint32(h) & uint32(len(m.tab)-1)) }

// put is putVal for a key not in the map (fromString's keys are distinct:
// pgHstoreValue refuses duplicates).
func (m *javaHashMap) put(p hstorePair) {
	h := hmHash(p.key)
	x := &hmNode{hash: h, key: utf16.Encode([]rune(p.key)), pair: p}
	i := m.index(h)
	first := m.tab[i]
	switch {
	case first == nil:
		m.tab[i] = x
	case first.tree:
		m.putTreeVal(first, x)
	default:
		last, binCount := first, 0
		for last.next != nil {
			last = last.next
			binCount++
		}
		last.next = x
		if binCount >= hmTreeifyThreshold-1 {
			m.treeifyBin(h)
		}
	}
	m.size++
	if m.size > len(m.tab)*3/4 {
		m.resize()
	}
}

func (m *javaHashMap) resize() {
	oldCap := len(m.tab)
	old := m.tab
	m.tab = make([]*hmNode, oldCap*2)
	for j, e := range old {
		switch {
		case e == nil:
		case e.next == nil:
			e.prev = nil
			m.tab[m.index(e.hash)] = e
		case e.tree:
			m.split(e, j, oldCap)
		default:
			var loHead, loTail, hiHead, hiTail *hmNode
			for ; e != nil; e = e.next {
				if int(uint32(e.hash))&oldCap == 0 {
					if loTail == nil {
						loHead = e
					} else {
						loTail.next = e
					}
					loTail = e
				} else {
					if hiTail == nil {
						hiHead = e
					} else {
						hiTail.next = e
					}
					hiTail = e
				}
			}
			if loTail != nil {
				loTail.next = nil
				m.tab[j] = loHead
			}
			if hiTail != nil {
				hiTail.next = nil
				m.tab[j+oldCap] = hiHead
			}
		}
	}
}

func (m *javaHashMap) treeifyBin(h int32) {
	if len(m.tab) < hmMinTreeifyCapacity {
		m.resize()
		return
	}
	i := m.index(h)
	var tl *hmNode
	for e := m.tab[i]; e != nil; e = e.next {
		e.tree = true
		e.prev = tl
		tl = e
	}
	if m.tab[i] != nil {
		m.treeify(m.tab[i])
	}
}

// dir is the insertion direction of key k (hash h) at node p: hash
// first, then String.compareTo.
func hmDir(h int32, k []uint16, p *hmNode) int {
	switch {
	case p.hash > h:
		return -1
	case p.hash < h:
		return 1
	}
	return compareUTF16(k, p.key)
}

func (m *javaHashMap) treeify(head *hmNode) {
	var root *hmNode
	for x := head; x != nil; x = x.next {
		x.left, x.right = nil, nil
		if root == nil {
			x.parent = nil
			x.red = false
			root = x
			continue
		}
		for p := root; ; {
			dir := hmDir(x.hash, x.key, p)
			xp := p
			if dir <= 0 {
				p = p.left
			} else {
				p = p.right
			}
			if p == nil {
				x.parent = xp
				if dir <= 0 {
					xp.left = x
				} else {
					xp.right = x
				}
				root = hmBalanceInsertion(root, x)
				break
			}
		}
	}
	m.moveRootToFront(root)
}

func (m *javaHashMap) putTreeVal(first, x *hmNode) {
	root := first
	for root.parent != nil {
		root = root.parent
	}
	x.tree = true
	for p := root; ; {
		dir := hmDir(x.hash, x.key, p)
		xp := p
		if dir <= 0 {
			p = p.left
		} else {
			p = p.right
		}
		if p == nil {
			xpn := xp.next
			x.next = xpn
			if dir <= 0 {
				xp.left = x
			} else {
				xp.right = x
			}
			xp.next = x
			x.parent, x.prev = xp, xp
			if xpn != nil {
				xpn.prev = x
			}
			m.moveRootToFront(hmBalanceInsertion(root, x))
			return
		}
	}
}

func (m *javaHashMap) moveRootToFront(root *hmNode) {
	if root == nil {
		return
	}
	i := m.index(root.hash)
	first := m.tab[i]
	if root == first {
		return
	}
	m.tab[i] = root
	rp, rn := root.prev, root.next
	if rn != nil {
		rn.prev = rp
	}
	if rp != nil {
		rp.next = rn
	}
	if first != nil {
		first.prev = root
	}
	root.next = first
	root.prev = nil
}

func (m *javaHashMap) untreeify(head *hmNode) *hmNode {
	for q := head; q != nil; q = q.next {
		q.tree = false
		q.parent, q.left, q.right, q.prev, q.red = nil, nil, nil, nil, false
	}
	return head
}

func (m *javaHashMap) split(b *hmNode, index, bit int) {
	var loHead, loTail, hiHead, hiTail *hmNode
	lc, hc := 0, 0
	for e := b; e != nil; {
		next := e.next
		e.next = nil
		if int(uint32(e.hash))&bit == 0 {
			if e.prev = loTail; loTail == nil {
				loHead = e
			} else {
				loTail.next = e
			}
			loTail = e
			lc++
		} else {
			if e.prev = hiTail; hiTail == nil {
				hiHead = e
			} else {
				hiTail.next = e
			}
			hiTail = e
			hc++
		}
		e = next
	}
	if loHead != nil {
		if lc <= hmUntreeifyThreshold {
			m.tab[index] = m.untreeify(loHead)
		} else {
			m.tab[index] = loHead
			if hiHead != nil {
				m.treeify(loHead)
			}
		}
	}
	if hiHead != nil {
		if hc <= hmUntreeifyThreshold {
			m.tab[index+bit] = m.untreeify(hiHead)
		} else {
			m.tab[index+bit] = hiHead
			if loHead != nil {
				m.treeify(hiHead)
			}
		}
	}
}

func hmRotateLeft(root, p *hmNode) *hmNode {
	if p == nil || p.right == nil {
		return root
	}
	r := p.right
	p.right = r.left
	if rl := p.right; rl != nil {
		rl.parent = p
	}
	r.parent = p.parent
	if pp := r.parent; pp == nil {
		root = r
		root.red = false
	} else if pp.left == p {
		pp.left = r
	} else {
		pp.right = r
	}
	r.left = p
	p.parent = r
	return root
}

func hmRotateRight(root, p *hmNode) *hmNode {
	if p == nil || p.left == nil {
		return root
	}
	l := p.left
	p.left = l.right
	if lr := p.left; lr != nil {
		lr.parent = p
	}
	l.parent = p.parent
	if pp := l.parent; pp == nil {
		root = l
		root.red = false
	} else if pp.right == p {
		pp.right = l
	} else {
		pp.left = l
	}
	l.right = p
	p.parent = l
	return root
}

func hmBalanceInsertion(root, x *hmNode) *hmNode {
	x.red = true
	for {
		xp := x.parent
		if xp == nil {
			x.red = false
			return x
		}
		xpp := xp.parent
		if !xp.red || xpp == nil {
			return root
		}
		if xppl := xpp.left; xp == xppl {
			if xppr := xpp.right; xppr != nil && xppr.red {
				xppr.red = false
				xp.red = false
				xpp.red = true
				x = xpp
				continue
			}
			if x == xp.right {
				x = xp
				root = hmRotateLeft(root, x)
				xp = x.parent
				xpp = nil
				if xp != nil {
					xpp = xp.parent
				}
			}
			if xp != nil {
				xp.red = false
				if xpp != nil {
					xpp.red = true
					root = hmRotateRight(root, xpp)
				}
			}
		} else {
			if xppl != nil && xppl.red {
				xppl.red = false
				xp.red = false
				xpp.red = true
				x = xpp
				continue
			}
			if x == xp.left {
				x = xp
				root = hmRotateRight(root, x)
				xp = x.parent
				xpp = nil
				if xp != nil {
					xpp = xp.parent
				}
			}
			if xp != nil {
				xp.red = false
				if xpp != nil {
					xpp.red = true
					root = hmRotateLeft(root, xpp)
				}
			}
		}
	}
}

// entries is the iteration order (HashIterator: bins in index order, each
// along its next links).
func (m *javaHashMap) entries() []hstorePair {
	out := make([]hstorePair, 0, m.size)
	for _, e := range m.tab {
		for ; e != nil; e = e.next {
			out = append(out, e.pair)
		}
	}
	return out
}

// javaHashMapOrder is the iteration order of a java.util.HashMap after
// putting pairs (distinct keys) in order.
func javaHashMapOrder(pairs []hstorePair) []hstorePair {
	m := newJavaHashMap()
	for _, p := range pairs {
		m.put(p)
	}
	return m.entries()
}
