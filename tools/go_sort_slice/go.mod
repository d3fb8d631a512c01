module gosortslice

go 1.26
