package fairqueuing

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
)

// Shuffle sharding, as k8s.io/apiserver's shufflesharding package deals it: a
// flow's hash picks a hand of handSize distinct queues out of a deck of
// `queues`, by taking successive remainders of the hash (mixed radix), so a
// flow always gets the same hand and two flows rarely share all of theirs.
// Hands are tested against kube's dealer on the same hashes.

// maxHashBits is how much of the hash a hand may use (kube's MaxHashBits).
const maxHashBits = 60

// Dealer deals hands of handSize from a deck of deckSize.
type Dealer struct{ deckSize, handSize int }

// requiredEntropyBits is ⌈log2(deckSize) × handSize⌉.
func requiredEntropyBits(deckSize, handSize int) int {
	return int(math.Ceil(math.Log2(float64(deckSize)) * float64(handSize)))
}

// NewDealer checks the parameters as kube's NewDealer does.
func NewDealer(deckSize, handSize int) (*Dealer, error) {
	switch {
	case deckSize <= 0 || handSize <= 0:
		return nil, fmt.Errorf("deckSize %d or handSize %d is not positive", deckSize, handSize)
	case handSize > deckSize:
		return nil, fmt.Errorf("handSize %d is greater than deckSize %d", handSize, deckSize)
	case deckSize > 1<<26:
		return nil, fmt.Errorf("deckSize %d is impractically large", deckSize)
	case requiredEntropyBits(deckSize, handSize) > maxHashBits:
		return nil, fmt.Errorf("required entropy bits of deckSize %d and handSize %d is greater than %d", deckSize, handSize, maxHashBits)
	}
	return &Dealer{deckSize: deckSize, handSize: handSize}, nil
}

// DealIntoHand deals the hand of hash into hand's backing array.
func (d *Dealer) DealIntoHand(hash uint64, hand []int) []int {
	var remainders [15]int // 15 is the largest hand 60 bits allow
	for i := 0; i < d.handSize; i++ {
		next := hash / uint64(d.deckSize-i)
		remainders[i] = int(hash - uint64(d.deckSize-i)*next)
		hash = next
	}
	h := hand[:0]
	for i := 0; i < d.handSize; i++ {
		card := remainders[i]
		for j := i; j > 0; j-- {
			if card >= remainders[j-1] {
				card++
			}
		}
		h = append(h, card)
	}
	return h
}

// HashFlowID is a flow's hash: the first 8 bytes (little-endian) of the
// SHA-256 of the FlowSchema's name, a zero byte and the distinguisher, as
// kube's.
func HashFlowID(fsName, distinguisher string) uint64 {
	h := sha256.New()
	h.Write([]byte(fsName))
	h.Write([]byte{0})
	h.Write([]byte(distinguisher))
	var sum [32]byte
	return binary.LittleEndian.Uint64(h.Sum(sum[:0])[:8])
}
