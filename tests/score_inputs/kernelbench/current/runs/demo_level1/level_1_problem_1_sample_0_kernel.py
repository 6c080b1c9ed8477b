# generated kernel source (ModelNew) for level 1, problem 1, sample 0
