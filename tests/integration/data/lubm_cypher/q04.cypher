// LUBM Query 4: professors (of every kind) working for Department0, with name, email address and telephone.
MATCH (x:Professor)-[:worksFor]->(:Resource {uri: 'http://www.Department0.University0.edu'})
WHERE x.name IS NOT NULL AND x.emailAddress IS NOT NULL AND x.telephone IS NOT NULL
RETURN x AS X, x.name AS Y1, x.emailAddress AS Y2, x.telephone AS Y3
