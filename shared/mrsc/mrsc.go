package mrsc

import "slices"

// Sets are the Region sets an MRSC table can span: US, EU and AP.
var Sets = [][]string{
	{"us-east-1", "us-east-2", "us-west-2"},
	{"eu-west-1", "eu-west-2", "eu-west-3", "eu-central-1"},
	{"ap-northeast-1", "ap-northeast-2", "ap-northeast-3"},
}

// SetOf is the set that holds every one of regions, nil when none does.
func SetOf(regions ...string) []string {
	for _, set := range Sets {
		all := true
		for _, r := range regions {
			all = all && slices.Contains(set, r)
		}
		if all {
			return set
		}
	}
	return nil
}
